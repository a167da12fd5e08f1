package paygate

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ids of the settle fixtures: the payment of the refund, payout, 3-D
// Secure and wallet listings, its refund, the payout, and the payment of
// transactions_by_id.json and transaction_status.json.
const (
	settlePayment ID = 9007199254740993201
	settleRefund  ID = 9007199254740993202
	settlePayout  ID = 9007199254740993206
	byIDPayment   ID = 9007199254740993123
)

// settleAnswer is a fixture an endpoint answers with.
type settleAnswer struct {
	status  int
	fixture string
}

func listed(fixture string) map[string]settleAnswer {
	return map[string]settleAnswer{"transactions": {200, fixture}}
}

func TestSettle_DecidesByTheTraceOfEachKind(t *testing.T) {
	t.Parallel()
	const order = "ord-2026-0042"
	byID := "transactions/" + byIDPayment.String()
	tests := []struct {
		name    string
		form    Form
		params  TransactionSettleParams
		answers map[string]settleAnswer
		outcome Outcome
		found   bool
		check   func(t *testing.T, rec *Reconciliation)
	}{
		{"charge completed", FormExtended, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			listed("transactions_list_single.json"), OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Completed())
				assert.Equal(t, ID(9007199254740993107), rec.Transaction.ID)
			}},
		{"charge needs 3-D Secure", FormExtended, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			listed("transactions_list_3ds.json"), OutcomeNeedsAuthentication, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.NeedsAuthentication())
				assert.False(t, rec.Completed())
			}},
		{"charge: only a payment known before is recorded", FormExtended, TransactionSettleParams{Kind: KindCharge, OrderID: order, Seen: []ID{9007199254740993107}},
			listed("transactions_list_single.json"), OutcomeNotFound, true, func(t *testing.T, rec *Reconciliation) {
				assert.Nil(t, rec.Transaction)
				assert.False(t, rec.Completed())
			}},
		{"charge: an empty listing", FormExtended, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			listed("transactions_list_empty.json"), OutcomeNotFound, false, nil},
		{"charge: 40403", FormExtended, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			map[string]settleAnswer{"transactions": {404, "error_transaction_not_found.json"}}, OutcomeNotFound, false, nil},
		{"recurring charge completed", FormExtended, TransactionSettleParams{Kind: KindRecurringCharge, OrderID: order},
			listed("transactions_list_single.json"), OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Completed())
			}},
		{"wallet payment waiting for its payer", FormExtended, TransactionSettleParams{Kind: KindWalletPayment, OrderID: order},
			listed("transactions_list_wallet_opened.json"), OutcomePending, true, func(t *testing.T, rec *Reconciliation) {
				assert.Equal(t, StatusOpened, rec.Transaction.Status)
				assert.Equal(t, "paypal", rec.Transaction.Method)
			}},
		{"authenticate by id: the payment completed (since refunded)", FormExtended, TransactionSettleParams{Kind: KindAuthenticate, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {200, "transactions_by_id.json"}}, OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Completed())
				assert.Equal(t, order, rec.OrderID, "the payment's order")
				assert.Empty(t, rec.Transactions, "the payment alone decides")
			}},
		{"authenticate by id: not recorded, the payment still waits", FormExtended, TransactionSettleParams{Kind: KindAuthenticate, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {200, "transactions_by_id_authenticating.json"}}, OutcomeNeedsAuthentication, true, nil},
		{"authenticate by id: no such payment", FormExtended, TransactionSettleParams{Kind: KindAuthenticate, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {404, "error_transaction_not_found.json"}}, OutcomeNotFound, false, nil},
		{"authenticate by order", FormExtended, TransactionSettleParams{Kind: KindAuthenticate, OrderID: order},
			listed("transactions_list_3ds.json"), OutcomeNeedsAuthentication, true, nil},
		{"reversal: partial refund", FormExtended, TransactionSettleParams{Kind: KindReversal, OrderID: order},
			listed("transactions_list_refund_partial.json"), OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Refunded())
				assert.False(t, rec.FullyRefunded())
				require.NotNil(t, rec.Refund())
				assert.Equal(t, settleRefund, rec.Refund().ID)
				assert.Equal(t, "4", rec.Refund().Price.String())
				assert.Equal(t, settlePayment, rec.Payment.ID)
				assert.False(t, rec.Completed(), "Completed is about payments")
			}},
		{"reversal: full refund", FormExtended, TransactionSettleParams{Kind: KindReversal, OrderID: order},
			listed("transactions_list_refund_full.json"), OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Refunded())
				assert.True(t, rec.FullyRefunded())
				assert.Equal(t, settleRefund, rec.Refund().ID)
			}},
		{"reversal: only a refund known before", FormExtended, TransactionSettleParams{Kind: KindReversal, OrderID: order, Seen: []ID{settleRefund}},
			listed("transactions_list_refund_partial.json"), OutcomeNotFound, true, func(t *testing.T, rec *Reconciliation) {
				assert.False(t, rec.Refunded())
				assert.Nil(t, rec.Refund())
				assert.Equal(t, settlePayment, rec.Payment.ID)
			}},
		{"reversal: the payment is not refunded", FormExtended, TransactionSettleParams{Kind: KindReversal, OrderID: order},
			listed("transactions_list_single.json"), OutcomeNotFound, true, nil},
		{"reversal by id: the refund of another payment of the order is not its", FormExtended, TransactionSettleParams{Kind: KindReversal, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {200, "transactions_by_id_authenticating.json"}, "transactions": {200, "transactions_list_refund_partial.json"}},
			OutcomeNotFound, true, func(t *testing.T, rec *Reconciliation) {
				assert.Equal(t, byIDPayment, rec.Payment.ID)
				assert.Len(t, rec.Transactions, 2)
			}},
		{"reversal by id: the payment reads refunded", FormExtended, TransactionSettleParams{Kind: KindReversal, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {200, "transactions_by_id.json"}, "transactions": {200, "transactions_list_empty.json"}},
			OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.FullyRefunded())
				assert.Nil(t, rec.Refund())
			}},
		{"reversal by id: a payment without an order id cannot show a partial refund", FormExtended, TransactionSettleParams{Kind: KindReversal, TransactionID: byIDPayment},
			map[string]settleAnswer{byID: {200, "transactions_by_id_without_order.json"}}, OutcomeUndetermined, true, func(t *testing.T, rec *Reconciliation) {
				assert.Empty(t, rec.OrderID)
				assert.False(t, rec.Refunded())
			}},
		{"payout processing", FormExtended, TransactionSettleParams{Kind: KindPayout, OrderID: order},
			listed("transactions_list_payout_processing.json"), OutcomePending, true, func(t *testing.T, rec *Reconciliation) {
				assert.False(t, rec.PayoutCompleted())
				assert.Equal(t, settlePayout, rec.Transaction.ID)
			}},
		{"payout completed", FormExtended, TransactionSettleParams{Kind: KindPayout, OrderID: order},
			listed("transactions_list_payout_completed.json"), OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.PayoutCompleted())
				assert.False(t, rec.Completed())
			}},
		{"payout failed", FormExtended, TransactionSettleParams{Kind: KindPayout, OrderID: order},
			listed("transactions_list_payout_failed.json"), OutcomeFailed, true, nil},
		{"payout: the order has only a payment", FormExtended, TransactionSettleParams{Kind: KindPayout, OrderID: order},
			listed("transactions_list_single.json"), OutcomeNotFound, true, nil},

		{"basic charge completed", FormBasic, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status.json"}}, OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Completed())
				assert.Equal(t, byIDPayment, rec.Status.ID)
			}},
		{"basic charge needs 3-D Secure", FormBasic, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status_authenticating.json"}}, OutcomeNeedsAuthentication, true, nil},
		{"basic charge: 40403", FormBasic, TransactionSettleParams{Kind: KindCharge, OrderID: order},
			map[string]settleAnswer{"transaction/status": {404, "error_transaction_not_found.json"}}, OutcomeNotFound, false, nil},
		{"basic charge: only a payment known before", FormBasic, TransactionSettleParams{Kind: KindRecurringCharge, OrderID: order, Seen: []ID{byIDPayment}},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status.json"}}, OutcomeNotFound, true, nil},
		{"basic authenticate by id", FormBasic, TransactionSettleParams{Kind: KindAuthenticate, TransactionID: byIDPayment},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status_authenticating.json"}}, OutcomeNeedsAuthentication, true, func(t *testing.T, rec *Reconciliation) {
				assert.Equal(t, order, rec.OrderID)
			}},
		{"basic reversal: the payment reads refunded", FormBasic, TransactionSettleParams{Kind: KindReversal, TransactionID: byIDPayment},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status_refunded.json"}}, OutcomeSucceeded, true, func(t *testing.T, rec *Reconciliation) {
				assert.True(t, rec.Refunded())
				assert.True(t, rec.FullyRefunded())
			}},
		{"basic reversal: a partial reversal cannot be told from none", FormBasic, TransactionSettleParams{Kind: KindReversal, OrderID: order},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status.json"}}, OutcomeUndetermined, true, func(t *testing.T, rec *Reconciliation) {
				assert.False(t, rec.Refunded())
			}},
		{"basic reversal: a payment waiting for 3-D Secure was not reversed", FormBasic, TransactionSettleParams{Kind: KindReversal, OrderID: order},
			map[string]settleAnswer{"transaction/status": {200, "transaction_status_authenticating.json"}}, OutcomeNotFound, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, mock := newMockClient(t, WithForm(tt.form))
			recs := map[string]*recorder{}
			for path, a := range tt.answers {
				recs[path] = record(t, mock, http.MethodGet, path, fixtureResponder(t, a.status, a.fixture))
			}
			p := tt.params
			rec, err := c.Transactions.Settle(context.Background(), &p)
			require.NoError(t, err)
			assert.Equal(t, tt.params.Kind, rec.Kind)
			assert.Equal(t, tt.outcome, rec.Outcome)
			assert.Equal(t, tt.found, rec.Found)
			if tt.check != nil {
				tt.check(t, rec)
			}
			for path, r := range recs {
				for _, req := range r.Requests() {
					requireSigned(t, req)
					switch {
					case path == "transactions":
						assert.Equal(t, order, req.Params.Get("orderId"))
					case path == "transaction/status" && tt.params.TransactionID != 0:
						assert.Equal(t, tt.params.TransactionID.String(), req.Params.Get("id"))
					case path == "transaction/status":
						assert.Equal(t, order, req.Params.Get("order_id"))
					}
				}
			}
		})
	}
}

func TestSettle_RejectsWhatItCannotSettleBeforeSending(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		params *TransactionSettleParams
		field  string
	}{
		{"nil", nil, "kind"},
		{"no kind", &TransactionSettleParams{OrderID: "o-1"}, "kind"},
		{"unknown kind", &TransactionSettleParams{Kind: "resolve_user", OrderID: "o-1"}, "kind"},
		{"charge without order", &TransactionSettleParams{Kind: KindCharge, TransactionID: 42}, "order_id"},
		{"payout without order", &TransactionSettleParams{Kind: KindPayout}, "order_id"},
		{"reversal with neither order nor id", &TransactionSettleParams{Kind: KindReversal}, "order_id"},
		{"order id too long", &TransactionSettleParams{Kind: KindCharge, OrderID: strings.Repeat("o", 65)}, "order_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireRejectedLocally(t, tc.field, func(c *Client) error { return errOf(c.Transactions.Settle(context.Background(), tc.params)) })
		})
	}
}

func TestSettle_BasicFormHasNoWalletPaymentsOrPayouts(t *testing.T) {
	t.Parallel()
	for _, kind := range []OperationKind{KindWalletPayment, KindPayout} {
		c, mock := newSilentMock(t, WithForm(FormBasic))
		_, err := c.Transactions.Settle(context.Background(), &TransactionSettleParams{Kind: kind, OrderID: "o-1"})
		require.ErrorIs(t, err, ErrBasicForm)
		assert.Zero(t, mock.GetTotalCallCount())
	}
}

// TestSettle_TheErrorOfEveryPaymentRequestNamesItsKind: an unknown outcome
// (a proxy's HTML 502) of each kind of request carries the kind, and its
// SettleParams what Settle needs.
func TestSettle_TheErrorOfEveryPaymentRequestNamesItsKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		kind OperationKind
		call func(c *Client) error
		want TransactionSettleParams
	}{
		{"card/process", KindCharge, func(c *Client) error {
			return errOf(c.Cards.Charge(context.Background(), edit(validCharge(), func(p *ChargeParams) { p.OrderID = "o-6" })))
		}, TransactionSettleParams{Kind: KindCharge, OrderID: "o-6"}},
		{"card/authenticate", KindAuthenticate, func(c *Client) error {
			return errOf(c.Cards.Authenticate(context.Background(), &AuthenticateParams{PaRes: NewACSData("pares"), MD: NewACSData("md")}))
		}, TransactionSettleParams{Kind: KindAuthenticate}},
		{"card/processRecurring", KindRecurringCharge, func(c *Client) error {
			return errOf(c.Cards.ChargeRecurring(context.Background(), edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.OrderID = "o-7" })))
		}, TransactionSettleParams{Kind: KindRecurringCharge, OrderID: "o-7"}},
		{"transaction/reverse", KindReversal, func(c *Client) error {
			return errOf(c.Transactions.Reverse(context.Background(), &ReverseParams{ID: 77, Amount: decimal.NewFromInt(5)}))
		}, TransactionSettleParams{Kind: KindReversal, TransactionID: 77}},
		{"transaction/create", KindWalletPayment, func(c *Client) error {
			return errOf(c.Transactions.Create(context.Background(), edit(validAlternativePayment(), func(p *AlternativeCreateParams) { p.OrderID = "o-8" })))
		}, TransactionSettleParams{Kind: KindWalletPayment, OrderID: "o-8"}},
		{"payout", KindPayout, func(c *Client) error {
			return errOf(c.Payouts.Create(context.Background(), validSEPAPayout()))
		}, TransactionSettleParams{Kind: KindPayout, OrderID: validSEPAPayout().OrderID}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c, mock := newMockClient(t)
			record(t, mock, http.MethodPost, tc.path, fixtureResponder(t, 502, "error_bad_gateway.html"))
			err := tc.call(c)
			var unknown *OutcomeUnknownError
			require.ErrorAs(t, err, &unknown)
			assert.Equal(t, tc.kind, unknown.Kind)
			assert.Equal(t, &tc.want, unknown.SettleParams())
		})
	}
}

func TestSettle_AFailedLookUpReturnsNoReconciliation(t *testing.T) {
	t.Parallel()
	for _, form := range []Form{FormExtended, FormBasic} {
		path := map[Form]string{FormExtended: "transactions", FormBasic: "transaction/status"}[form]
		c, _ := stubFixture(t, http.MethodGet, path, 403, "error_signature_invalid.json", WithForm(form))
		rec, err := c.Transactions.Settle(context.Background(), &TransactionSettleParams{Kind: KindCharge, OrderID: "o-1"})
		require.ErrorIs(t, err, ErrSignatureInvalid)
		assert.Nil(t, rec)
	}
}
