package paygate_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/paygate/paygate-go/paygatetest"
)

// concurrentOrder is what one goroutine did to its order.
type concurrentOrder struct {
	orderID  string
	payment  paygate.ID
	price    decimal.Decimal
	declined bool
	refunds  []paygate.ID
	refunded decimal.Decimal
	err      error
}

// 60 goroutines share one client: each resolves a user, tokenizes, charges,
// reverses part of what it charged and lists its order, while the balance
// is read. Afterwards no id is repeated, every order lists what was done
// to it, the balance is what was charged less fees and refunds, and every
// callback arrived once.
func TestIntegration_ConcurrentChargesReversalsAndListings(t *testing.T) {
	const workers = 60
	rc := newReceiver(t, paygatetest.DefaultPrivateKey)
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(rc.URL))
	client := sb.client

	orders := make([]concurrentOrder, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			orders[i] = runConcurrentOrder(t, client, i)
		}()
	}
	deadline.WaitWithin(t, "the concurrent orders", &wg)

	seen := make(map[paygate.ID]string)
	want := decimal.Zero
	wantCallbacks := 0
	for _, o := range orders {
		require.NoError(t, o.err, o.orderID)
		for _, id := range append([]paygate.ID{o.payment}, o.refunds...) {
			require.NotContains(t, seen, id, "id %s of %s also given to %s", id, o.orderID, seen[id])
			seen[id] = o.orderID
		}
		wantCallbacks += 1 + len(o.refunds)
		if !o.declined {
			want = want.Add(o.price).Sub(fee(o.price.String())).Sub(o.refunded)
		}

		page, err := client.Transactions.List(testCtx(t), &paygate.TransactionListParams{OrderID: o.orderID})
		require.NoError(t, err)
		assert.Equal(t, 1+len(o.refunds), page.TotalCount, o.orderID)
		assert.Equal(t, append([]paygate.ID{o.payment}, o.refunds...), ids(page.Transactions), o.orderID)
	}
	// The balance is reported in cents; the fees have four decimals.
	assert.True(t, want.Round(2).Equal(sb.balance(t)), "balance %s, want %s", sb.balance(t), want)

	for _, o := range orders {
		status := callback.Completed
		if o.declined {
			status = callback.Failed
		}
		rc.wait(t, o.payment, status)
		for _, r := range o.refunds {
			rc.wait(t, r, callback.RefundCompleted)
		}
	}
	assert.Len(t, rc.callbacks(), wantCallbacks, "each callback processed once")
	assert.Len(t, sb.srv.Deliveries(), wantCallbacks)
}

// runConcurrentOrder is one goroutine's work: every seventh card is
// declined; an approved payment is reversed twice in part.
func runConcurrentOrder(t *testing.T, client *paygate.Client, i int) (o concurrentOrder) {
	ctx := testCtx(t)
	o.orderID = fmt.Sprintf("conc-%02d", i)
	o.price = decimal.New(int64(1000+i*37), -2)
	card := paygatetest.CardApproved
	if i%7 == 0 {
		card, o.declined = paygatetest.CardDeclined, true
	}
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-" + o.orderID, IP: "203.0.113.7"})
	if err != nil {
		o.err = err
		return o
	}
	tok, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(card), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123")})
	if err != nil {
		o.err = err
		return o
	}
	pay, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: user, CardToken: paygate.NewCardToken(tok.ID), Price: o.price, Currency: "EUR", Description: "Order " + o.orderID, OrderID: o.orderID,
	})
	if err != nil {
		o.err = err
		return o
	}
	o.payment = pay.ID
	if _, err := client.Balance.Get(ctx, nil); err != nil {
		o.err = err
		return o
	}
	if o.declined {
		return o
	}
	for _, part := range []decimal.Decimal{decimal.New(150, -2), decimal.New(int64(i%5+1), -1)} {
		r, err := client.Transactions.Reverse(ctx, &paygate.ReverseParams{ID: pay.ID, Amount: part})
		if err != nil {
			o.err = err
			return o
		}
		o.refunds = append(o.refunds, r.ID)
		o.refunded = o.refunded.Add(part)
		for _, err := range client.Transactions.All(ctx, &paygate.TransactionListParams{OrderID: o.orderID, Limit: 1}) {
			if err != nil {
				o.err = err
				return o
			}
		}
	}
	return o
}
