package paygate_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// shopOrders is a shop's orders table, kept by paygate.OrderState's rule:
// each change reads the stored state, applies the observation and writes
// it back with a compare-and-set, as a shop does in its database.
type shopOrders struct {
	mu     sync.Mutex
	orders map[string]paygate.OrderState
	// seen counts the callbacks the shop's function was called with, by
	// status.
	seen map[callback.Status]int
}

func newShopOrders() *shopOrders {
	return &shopOrders{orders: map[string]paygate.OrderState{}, seen: map[callback.Status]int{}}
}

// open records a new order id that charges amount.
func (b *shopOrders) open(id, amount string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.orders[id] = paygate.NewOrderState(dec(amount))
}

func (b *shopOrders) get(id string) paygate.OrderState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.orders[id]
}

// compareAndSet stores next for order id if it still holds old.
func (b *shopOrders) compareAndSet(id string, old, next paygate.OrderState) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.orders[id].Equal(old) {
		return false
	}
	b.orders[id] = next
	return true
}

// apply applies o to order id and returns the stored state.
func (b *shopOrders) apply(id string, o paygate.OrderObservation) paygate.OrderState {
	for {
		old := b.get(id)
		next := old.Apply(o)
		if next.Equal(old) || b.compareAndSet(id, old, next) {
			return next
		}
	}
}

// handle is the shop's callback function as the README recommends:
// confirm the callback against the gateway's record, then apply it. One
// that does not confirm is acknowledged when the rule says it is old news
// for the order (nothing would change); otherwise it is refused, so that
// the gateway delivers it again.
func (b *shopOrders) handle(client *paygate.Client) callback.Func {
	return func(ctx context.Context, cb *callback.Callback) error {
		b.mu.Lock()
		b.seen[cb.Status]++
		b.mu.Unlock()
		obs := paygate.ObserveCallback(cb)
		_, err := client.ConfirmCallback(ctx, cb)
		var mismatch *paygate.CallbackMismatchError
		switch {
		case errors.As(err, &mismatch):
			if now := b.get(cb.OrderID); now.Apply(obs).Equal(now) {
				return nil
			}
			return err
		case err != nil:
			return err
		}
		b.apply(cb.OrderID, obs)
		return nil
	}
}

// shopOnSandbox starts a sandbox whose callbacks go to a shop keeping its
// orders in book, with the handler options given.
func shopOnSandbox(t *testing.T, book *shopOrders, opts ...callback.Option) *sandbox {
	t.Helper()
	sb := newSandbox(t, paygate.FormExtended)
	h, err := callback.NewHandler([]string{sb.srv.PrivateKey}, book.handle(sb.client), opts...)
	require.NoError(t, err)
	require.NoError(t, sb.srv.SetCallbackURL(serveCallbacks(t, h).URL))
	return sb
}

// waitDelivered waits until the shop acknowledged the sandbox's callback
// with status for order orderID (of transaction id, unless 0) at the
// attempts-th attempt, and returns it.
func waitDelivered(t *testing.T, sb *sandbox, orderID string, id paygate.ID, status callback.Status, attempts int) paygatetest.Delivery {
	t.Helper()
	d, err := sb.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool {
		return d.Values.Get("order_id") == orderID && (id == 0 || d.Values.Get("id") == id.String()) &&
			d.Values.Get("status") == string(status) && d.Attempts >= attempts && d.Delivered
	})
	require.NoError(t, err, "no acknowledged %s callback for %s", status, orderID)
	return d
}

// paidOrder starts a shop without de-duplication (as after a restart,
// when the memory store forgot), so that a redelivered callback reaches
// the shop's function, and pays its order orderID of 25.00 EUR with the
// approved card. It returns the payment and its completed callback.
func paidOrder(t *testing.T, orderID string) (*shopOrders, *sandbox, *paygate.Payment, paygatetest.Delivery) {
	t.Helper()
	book := newShopOrders()
	sb := shopOnSandbox(t, book, callback.WithoutDedup())
	book.open(orderID, "25.00")
	pay := sb.charge(t, paygatetest.CardApproved, "25.00", orderID)
	return book, sb, pay, waitDelivered(t, sb, orderID, pay.ID, callback.Completed, 1)
}

func TestOrderState_CallbackOvertakingALateUnknownAnswerLeavesTheOrderPaid(t *testing.T) {
	t.Parallel()
	book := newShopOrders()
	sb := shopOnSandbox(t, book)
	const orderID = "ord-overtaken"
	book.open(orderID, "25.00")
	params := sb.chargeParams(t, sb.user(t, "cust-"+orderID), paygatetest.CardApproved, "25.00", orderID)
	require.NoError(t, sb.srv.InjectFault("card/process", paygatetest.FaultTimeoutAfterCommit, 1))

	ctx, giveUp := context.WithCancel(testCtx(t))
	defer giveUp()
	answer := make(chan error, 1)
	go func() {
		_, err := sb.client.Cards.Charge(ctx, params)
		answer <- err
	}()
	// The gateway processed the charge and holds the answer; its callback
	// comes first and is confirmed.
	waitDelivered(t, sb, orderID, 0, callback.Completed, 1)
	require.Equal(t, paygate.OrderPaid, book.get(orderID).Status, "the confirmed callback paid the order")

	giveUp() // the shop's deadline: the answer never came
	err := <-answer
	require.ErrorIs(t, err, paygate.ErrOutcomeUnknown)
	got := book.apply(orderID, paygate.ObserveCharge(nil, err))
	assert.Equal(t, paygate.OrderPaid, got.Status, "the late unknown answer leaves the order paid")

	var unknown *paygate.OutcomeUnknownError
	require.ErrorAs(t, err, &unknown)
	rec, err := sb.client.Transactions.Settle(testCtx(t), unknown.SettleParams())
	require.NoError(t, err)
	got = book.apply(orderID, paygate.ObserveSettlement(rec))
	assert.Equal(t, paygate.OrderPaid, got.Status, "settling finds the payment the callback reported")
}

func TestOrderState_SettlementOfAnUnknownChargeWithoutCallbackPaysTheOrder(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended) // no callback URL: only settling tells
	order := paygate.NewOrderState(dec("25.00"))
	require.NoError(t, sb.srv.InjectFault("card/process", paygatetest.FaultResetAfterCommit, 1))
	_, err := sb.tryCharge(t, paygatetest.CardApproved, "25.00", "ord-settled")
	order = order.Apply(paygate.ObserveCharge(nil, err))
	require.Equal(t, paygate.OrderProcessing, order.Status, "the money may have been taken")

	var unknown *paygate.OutcomeUnknownError
	require.ErrorAs(t, err, &unknown)
	rec, err := sb.client.Transactions.Settle(testCtx(t), unknown.SettleParams())
	require.NoError(t, err)
	order = order.Apply(paygate.ObserveSettlement(rec))
	assert.Equal(t, paygate.OrderPaid, order.Status)
}

func TestOrderState_StaleCompletedNeverReopensARefundedOrder(t *testing.T) {
	t.Parallel()
	const orderID = "ord-refunded"
	book, sb, pay, completed := paidOrder(t, orderID)
	book.apply(orderID, paygate.ObserveCharge(pay, nil))
	for _, amount := range []string{"10.00", "15.00"} {
		refund, err := sb.reverse(t, pay.ID, amount)
		require.NoError(t, err)
		waitDelivered(t, sb, orderID, refund.ID, callback.RefundCompleted, 1)
		if amount == "10.00" {
			require.Equal(t, paygate.OrderPartiallyRefunded, book.get(orderID).Status)
		}
	}
	require.Equal(t, paygate.OrderRefunded, book.get(orderID).Status, "the refunds add up to the whole payment")

	require.NoError(t, sb.srv.Redeliver(completed.Seq))
	again := waitDelivered(t, sb, orderID, pay.ID, callback.Completed, 2)
	assert.Equal(t, 200, again.LastStatus, "old news is acknowledged")
	book.mu.Lock()
	assert.Equal(t, 2, book.seen[callback.Completed], "the stale completed reached the shop")
	book.mu.Unlock()
	got := book.get(orderID)
	assert.Equal(t, paygate.OrderRefunded, got.Status, "a stale completed never reopens a refunded order")
	assert.Equal(t, "25", got.Refunded.String())
}

func TestOrderState_DisputeWonStaysWonWhenTheChargebackIsDeliveredAgain(t *testing.T) {
	t.Parallel()
	const orderID = "ord-disputed"
	book, sb, pay, _ := paidOrder(t, orderID)
	chargeback, err := sb.srv.Chargeback(pay.ID)
	require.NoError(t, err)
	disputed := waitDelivered(t, sb, orderID, chargeback, callback.ChargebackCompleted, 1)
	require.Equal(t, paygate.OrderChargedBack, book.get(orderID).Status, "the confirmed chargeback callback")
	retrieval, err := sb.srv.Retrieve(chargeback)
	require.NoError(t, err)
	waitDelivered(t, sb, orderID, retrieval, callback.RetrievalCompleted, 1)
	require.Equal(t, paygate.OrderRetrieved, book.get(orderID).Status, "the confirmed retrieval callback")

	require.NoError(t, sb.srv.Redeliver(disputed.Seq))
	waitDelivered(t, sb, orderID, chargeback, callback.ChargebackCompleted, 2)
	assert.Equal(t, paygate.OrderRetrieved, book.get(orderID).Status, "a won dispute stays won")
}
