package paygate_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// readmeHandler is the handler of docs/webhooks.md, word for
// word between the markers (TestREADME_HandlerIsTheOneTheWalkUses keeps
// them equal): it confirms every callback with client and records it in
// orders.
func readmeHandler(client *paygate.Client, orders *orderBook) (*callback.Handler, error) {
	// README handler begin
	handler, err := callback.NewHandler([]string{os.Getenv("PAYGATE_SECRET")},
		func(ctx context.Context, cb *callback.Callback) error {
			// The signature covers values, not field names: act only on a
			// callback the gateway's own record confirms.
			_, err := client.ConfirmCallback(ctx, cb)
			var mismatch *paygate.CallbackMismatchError
			switch {
			case cb.Stale && (err == nil || errors.As(err, &mismatch)),
				errors.As(err, &mismatch) && mismatch.Superseded:
				return nil // its transaction has moved on since: acknowledged, never acted on
			case err != nil:
				return err // values moved between fields, or the gateway not reached: 500, delivered again
			}
			switch cb.Status {
			case callback.Completed:
				return orders.MarkPaid(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
			case callback.RefundCompleted, callback.Reversed:
				return orders.MarkRefunded(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
			case callback.ChargebackCompleted:
				return orders.MarkChargedBack(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
			}
			return orders.RecordStatus(ctx, cb.OrderID, cb.ID, cb.Status) // the order's history
		})
	// README handler end
	return handler, err
}

// orderBook is the merchant's order store of the README's handler: it
// keeps what the handler did, per transaction.
type orderBook struct {
	mu   sync.Mutex
	done []bookEntry
}

// bookEntry is one action of the handler: the callback status it stands
// for (MarkPaid stands for completed, ...) and the transaction.
type bookEntry struct {
	action string
	id     paygate.ID
	status callback.Status // RecordStatus only
}

func (b *orderBook) add(e bookEntry) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = append(b.done, e)
	return nil
}

func (b *orderBook) MarkPaid(_ context.Context, _ string, id paygate.ID, _ decimal.Decimal, _ string) error {
	return b.add(bookEntry{action: "paid", id: id})
}

func (b *orderBook) MarkRefunded(_ context.Context, _ string, id paygate.ID, _ decimal.Decimal, _ string) error {
	return b.add(bookEntry{action: "refunded", id: id})
}

func (b *orderBook) MarkChargedBack(_ context.Context, _ string, id paygate.ID, _ decimal.Decimal, _ string) error {
	return b.add(bookEntry{action: "charged back", id: id})
}

func (b *orderBook) RecordStatus(_ context.Context, _ string, id paygate.ID, status callback.Status) error {
	return b.add(bookEntry{action: "recorded", id: id, status: status})
}

// actedOn returns how many times the handler acted on the callback of
// transaction id with status.
func (b *orderBook) actedOn(id paygate.ID, status callback.Status) int {
	want := bookEntry{id: id, action: "recorded", status: status}
	switch status {
	case callback.Completed:
		want = bookEntry{id: id, action: "paid"}
	case callback.RefundCompleted, callback.Reversed:
		want = bookEntry{id: id, action: "refunded"}
	case callback.ChargebackCompleted:
		want = bookEntry{id: id, action: "charged back"}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, e := range b.done {
		if e == want {
			n++
		}
	}
	return n
}

// callbackWalk is a sandbox whose callbacks go to the README's handler
// behind a network that can be cut (answering 503 without reaching the
// handler), with a clock that moves only when the walk moves it and
// processing transactions that settle only when the walk says so.
type callbackWalk struct {
	*sandbox
	orders *orderBook
	cut    atomic.Bool
	// held are the callbacks delivered while the network was cut.
	held []int
}

func newCallbackWalk(t *testing.T, form paygate.Form) *callbackWalk {
	w := &callbackWalk{sandbox: newSandbox(t, form, paygatetest.WithProcessingDelay(0)), orders: &orderBook{}}
	t.Setenv("PAYGATE_SECRET", w.srv.PrivateKey)
	handler, err := readmeHandler(w.client, w.orders)
	require.NoError(t, err)
	hs := serveCallbacks(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if w.cut.Load() {
			http.Error(rw, "network cut", http.StatusServiceUnavailable)
			return
		}
		handler.ServeHTTP(rw, r)
	}))
	require.NoError(t, w.srv.SetCallbackURL(hs.URL))
	return w
}

// settle waits until every callback made so far has been attempted once.
func (w *callbackWalk) settle(t *testing.T) {
	t.Helper()
	for _, d := range w.srv.Deliveries() {
		if d.Attempts == 0 {
			_, err := w.srv.WaitForDelivery(testCtx(t), func(x paygatetest.Delivery) bool { return x.Seq == d.Seq && x.Attempts > 0 })
			require.NoError(t, err, "callback %d %s was never sent", d.Seq, d.Values.Get("status"))
		}
	}
}

// step runs do and waits for the callbacks it made to be attempted.
func (w *callbackWalk) step(t *testing.T, do func()) {
	t.Helper()
	do()
	w.settle(t)
}

// trigger applies e to id and returns the transaction it made.
func (w *callbackWalk) trigger(t *testing.T, id paygate.ID, e paygatetest.Event) paygate.ID {
	t.Helper()
	var made paygate.ID
	w.step(t, func() {
		var err error
		made, err = w.srv.Trigger(id, e)
		require.NoError(t, err, "%s of %s", e, id)
	})
	return made
}

// drainRetries moves the clock through the sandbox's retry schedule until
// no callback waits for another attempt.
func (w *callbackWalk) drainRetries(t *testing.T) {
	t.Helper()
	for range paygatetest.DefaultCallbackAttempts {
		var waiting []paygatetest.Delivery
		for _, d := range w.srv.Deliveries() {
			if !d.Done {
				waiting = append(waiting, d)
			}
		}
		if len(waiting) == 0 {
			return
		}
		w.srv.Advance(24*time.Hour + 24*time.Hour/10) // the longest wait of the schedule, and its jitter
		for _, d := range waiting {
			_, err := w.srv.WaitForDelivery(testCtx(t), func(x paygatetest.Delivery) bool { return x.Seq == d.Seq && x.Attempts > d.Attempts })
			require.NoError(t, err)
		}
	}
}

// Every callback the sandbox sends, in both forms, goes through the
// README's handler: each genuine callback is confirmed and acted on once,
// and one delivered late, after a later status of its transaction was
// processed, is acknowledged as stale; every delivery ends answered 2xx.
func TestCallbackHandler_READMEPatternConfirmsEveryCallbackTheSandboxSends(t *testing.T) {
	wantStatuses := map[paygate.Form][]callback.Status{
		paygate.FormExtended: {
			callback.Completed, callback.Failed, callback.Processing, callback.WaitingApproval,
			callback.Verified, callback.RefundCompleted, callback.ChargebackCompleted,
			callback.RetrievalCompleted, callback.PenaltyCompleted, callback.PayoutCompleted,
			callback.PayoutFailed, callback.PayoutCancelled, callback.PayoutAbandoned,
		},
		paygate.FormBasic: {
			callback.Completed, callback.Failed, callback.Verified, callback.Reversed,
			callback.RefundCompleted, callback.ChargebackCompleted, callback.RetrievalCompleted,
			callback.PenaltyCompleted,
		},
	}
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		w := newCallbackWalk(t, form)
		w.walkCards(t)
		w.walkRefunds(t)
		w.walkDisputes(t)
		if form == paygate.FormExtended {
			w.walkWallets(t)
			w.walkPayouts(t)
		}
		w.walkStaleDelivery(t)
		w.drainRetries(t)

		confirmed := map[callback.Status]int{}
		sent := map[callback.Status]int{}
		for _, d := range w.srv.Deliveries() {
			status := callback.Status(d.Values.Get("status"))
			id, err := paygate.ParseID(d.Values.Get("id"))
			require.NoError(t, err)
			sent[status]++
			assert.True(t, d.Delivered, "%s callback for %s answered %d after %d attempts", status, id, d.LastStatus, d.Attempts)
			assert.GreaterOrEqual(t, d.LastStatus, 200)
			assert.Less(t, d.LastStatus, 300)
			if slices.Contains(w.held, d.Seq) {
				assert.Zero(t, w.orders.actedOn(id, status), "the stale %s callback for %s is acknowledged, never acted on", status, id)
				continue
			}
			if assert.Equal(t, 1, w.orders.actedOn(id, status), "%s callback for %s confirmed and acted on once", status, id) {
				confirmed[status]++
			}
			assert.Equal(t, 1, d.Attempts, "%s callback for %s confirmed at its first delivery", status, id)
		}
		require.NotEmpty(t, w.held)
		assert.ElementsMatch(t, wantStatuses[form], keys(sent), "every callback status the sandbox sends in the %s form", form)
		for _, held := range w.held {
			d, _ := w.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool { return d.Seq == held })
			sent[callback.Status(d.Values.Get("status"))]--
		}
		assert.Equal(t, sent, confirmed, "callbacks confirmed per status")
		t.Logf("%s form: confirmed per status %v; acknowledged as stale: %d", form, confirmed, len(w.held))
	})
}

// walkCards: approved, declined, processing, 3-D Secure passed and failed,
// and card verifications (one of them processing first).
func (w *callbackWalk) walkCards(t *testing.T) {
	w.step(t, func() { w.charge(t, paygatetest.CardApproved, "500.00", "walk-approved") })
	w.step(t, func() { require.True(t, w.charge(t, paygatetest.CardDeclined, "20.00", "walk-declined").Failed()) })
	w.step(t, func() { w.charge(t, paygatetest.CardProcessing, "30.00", "walk-processing") })
	w.step(t, w.srv.SettlePending)
	for _, password := range []string{paygatetest.ACSPassword, "wrong"} {
		pay := w.charge3DS(t, "walk-3ds-"+password)
		w.step(t, func() {
			params := w.returnOf(pay)
			params.PaRes = paygate.NewACSData(w.srv.PaRes(params.MD.Reveal(), password))
			_, _ = w.client.Cards.Authenticate(testCtx(t), params)
		})
	}
	for _, card := range []string{paygatetest.CardApproved, paygatetest.CardProcessing} {
		w.step(t, func() {
			params := w.chargeParams(t, w.user(t, "cust-verify-"+card), card, "0", "walk-verify-"+card)
			params.VerifyCard = true
			_, err := w.client.Cards.Charge(testCtx(t), params)
			require.NoError(t, err)
		})
	}
	w.step(t, w.srv.SettlePending)
}

// walkRefunds: a partial refund then the rest (the basic form reverses the
// payment), and a penalty on the first refund.
func (w *callbackWalk) walkRefunds(t *testing.T) {
	pay := w.charge(t, paygatetest.CardApproved, "40.00", "walk-refund")
	w.settle(t)
	var first *paygate.Payment
	w.step(t, func() {
		var err error
		first, err = w.reverse(t, pay.ID, "15.00")
		require.NoError(t, err)
	})
	w.step(t, func() {
		_, err := w.reverse(t, pay.ID, "25.00")
		require.NoError(t, err)
	})
	refund := first.ID
	if w.form == paygate.FormBasic { // transaction/reverse answers only success
		refund = w.refundOf(t, pay.ID)
	}
	w.trigger(t, refund, paygatetest.EventPenalty)
}

// refundOf returns the id of the first refund callback for payment.
func (w *callbackWalk) refundOf(t *testing.T, payment paygate.ID) paygate.ID {
	t.Helper()
	for _, d := range w.srv.Deliveries() {
		if d.Values.Get("status") == string(callback.RefundCompleted) && d.Values.Get("reference_id") == payment.String() {
			id, err := paygate.ParseID(d.Values.Get("id"))
			require.NoError(t, err)
			return id
		}
	}
	t.Fatalf("no refund of %s", payment)
	return 0
}

// walkDisputes: a chargeback, the dispute won back, and a penalty on the
// chargeback.
func (w *callbackWalk) walkDisputes(t *testing.T) {
	pay := w.charge(t, paygatetest.CardApproved, "60.00", "walk-dispute")
	w.settle(t)
	chargeback := w.trigger(t, pay.ID, paygatetest.EventChargeback)
	w.trigger(t, chargeback, paygatetest.EventRetrieval)
	w.trigger(t, chargeback, paygatetest.EventPenalty)
}

// walkWallets: wallet payments held for approval then approved, declined
// by the payer, and abandoned (which sends no callback).
func (w *callbackWalk) walkWallets(t *testing.T) {
	wallet := func(orderID string) paygate.ID {
		pay, err := w.client.Transactions.Create(testCtx(t), &paygate.AlternativeCreateParams{
			UserIdentifier: "cust-" + orderID, PaymentMethod: paygate.MethodPayPal, Price: dec("9.90"), Currency: "EUR",
			Description: "Wallet " + orderID, OrderID: orderID,
			SuccessURL: "https://shop.example/paid", FailURL: "https://shop.example/failed",
		})
		require.NoError(t, err)
		return pay.ID
	}
	held := wallet("walk-wallet-held")
	w.trigger(t, held, paygatetest.EventWaitingApproval)
	w.trigger(t, held, paygatetest.EventApprove)
	w.trigger(t, wallet("walk-wallet-declined"), paygatetest.EventDecline)
	before := len(w.srv.Deliveries())
	w.trigger(t, wallet("walk-wallet-abandoned"), paygatetest.EventAbandon)
	assert.Len(t, w.srv.Deliveries(), before, "an abandoned payment sends no callback")
}

// walkPayouts: payouts settled, held for approval then completed, to the
// declined card, failed, cancelled and abandoned.
func (w *callbackWalk) walkPayouts(t *testing.T) {
	payout := func(card, orderID string) paygate.ID {
		var id paygate.ID
		w.step(t, func() {
			p, err := w.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
				Type: w.payoutType(t, "CREDIT_CARD"), CardToken: paygate.NewCardToken(w.token(t, card)),
				Amount: dec("10.00"), Currency: "EUR", OrderID: orderID, CardHolder: "JANE ROE",
			})
			require.NoError(t, err)
			id = p.ID
		})
		return id
	}
	payout(paygatetest.CardApproved, "walk-payout-settled")
	payout(paygatetest.CardDeclined, "walk-payout-declined")
	w.step(t, w.srv.SettlePending)
	held := payout(paygatetest.CardApproved, "walk-payout-held")
	w.trigger(t, held, paygatetest.EventWaitingApproval)
	w.trigger(t, held, paygatetest.EventComplete)
	for _, e := range []paygatetest.Event{paygatetest.EventFail, paygatetest.EventCancel, paygatetest.EventAbandon} {
		w.trigger(t, payout(paygatetest.CardApproved, "walk-payout-"+string(e)), e)
	}
}

// walkStaleDelivery: a payment's completed callback cannot reach the
// handler until the payment was refunded in full and that callback
// processed; it then arrives with a retry, stale.
func (w *callbackWalk) walkStaleDelivery(t *testing.T) {
	w.cut.Store(true)
	pay := w.charge(t, paygatetest.CardApproved, "50.00", "walk-stale")
	w.settle(t)
	w.cut.Store(false)
	for _, d := range w.srv.Deliveries() {
		if d.Values.Get("id") == pay.ID.String() {
			require.False(t, d.Delivered)
			w.held = append(w.held, d.Seq)
		}
	}
	w.step(t, func() {
		_, err := w.reverse(t, pay.ID, "50.00")
		require.NoError(t, err)
	})
}

// keys returns the keys of m.
func keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The README, the webhooks guide and the callback package's doc show the
// handler the walk above runs, to the letter: one pattern everywhere, so
// that a handler copied from any of them confirms every callback.
func TestREADME_HandlerIsTheOneTheWalkUses(t *testing.T) {
	t.Parallel()
	code := between(t, "callbacks_walk_integration_test.go", "\t// README handler begin\n", "\t// README handler end\n")
	code = strings.ReplaceAll("\n"+code, "\n\t", "\n")[1:]

	for _, place := range []struct{ file, after, prefix string }{
		{"README.md", "### Callbacks\n", ""},
		{"docs/webhooks.md", "## The handler\n", ""},
		{"callback/doc.go", "// The handler pattern:", "//\t"},
	} {
		block := between(t, place.file, place.after, "\n"+place.prefix+"if err != nil {")
		if place.prefix == "" {
			_, block, _ = strings.Cut(block, "```go\n")
		} else {
			block = block[strings.Index(block, place.prefix):]
			block = strings.ReplaceAll(block, "\n"+place.prefix, "\n")[len(place.prefix):]
		}
		assert.Equal(t, code, block+"\n", "the handler of %s differs from the walk's", place.file)
	}
}

// between returns the text of file between the first start and the end
// that follows it.
func between(t *testing.T, file, start, end string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	_, text, ok := strings.Cut(string(src), start)
	require.True(t, ok, "%s has no %q", file, start)
	text, _, ok = strings.Cut(text, end)
	require.True(t, ok, "%s has no %q after %q", file, end, start)
	return text
}
