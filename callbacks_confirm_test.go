package paygate

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parentShape makes a refund, chargeback or retrieval callback about the
// transaction acted on: its id is the payment, and its reference_id the
// payment's own parent (none).
var parentShape = url.Values{"id": {"9007199254740993"}, "reference_id": {""}}

func TestConfirmCallback_ComparesWithTheGatewaysRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		form           Form
		status         callback.Status
		fields         url.Values
		fixture        string // by-id record (extended) or status record (basic)
		wantMismatches []string
	}{
		{"completed agrees", FormExtended, callback.Completed, nil, "transaction_completed.json", nil},
		{"basic completed agrees", FormBasic, callback.Completed, nil, "transaction_status_completed.json", nil},
		{"completed after a full refund is stale", FormExtended, callback.Completed, nil, "transaction_refunded.json", []string{"status"}},
		{"basic completed after a full refund is stale", FormBasic, callback.Completed, nil, "transaction_status_refunded.json", []string{"status"}},
		{"reversed agrees with refunded", FormBasic, callback.Reversed, url.Values{"id": {"9007199254740993"}}, "transaction_status_refunded.json", nil},
		{"refund_completed agrees with the completed refund", FormExtended, callback.RefundCompleted, nil, "transaction_refund.json", nil},
		{"refund_completed with id and reference_id swapped", FormExtended, callback.RefundCompleted,
			url.Values{"id": {"9007199254740993"}, "reference_id": {"9007199254740994"}}, "transaction_refunded.json",
			[]string{"reference_id", "type", "status"}},
		{"completed while still processing", FormExtended, callback.Completed, nil, "transaction_processing.json", []string{"status"}},
		{"failed callback for a completed payment", FormExtended, callback.Failed, nil, "transaction_completed.json", []string{"status"}},
		{"unknown status never agrees", FormExtended, "on_hold", nil, "transaction_completed.json", []string{"status"}},
		{"callback type other than transaction", FormExtended, callback.Completed, url.Values{"type": {"completed"}}, "transaction_completed.json", []string{"type"}},
		{"price differs", FormExtended, callback.Completed, url.Values{"price": {"1000.0000"}}, "transaction_completed.json", []string{"price"}},
		{"amount and user swapped", FormExtended, callback.Completed, url.Values{"amount": {"7301"}, "user": {"10.00"}}, "transaction_completed.json", []string{"amount", "user"}},
		{"amount emptied by a swap with reason", FormExtended, callback.Completed, url.Values{"amount": {""}, "reason": {"10.00"}}, "transaction_completed.json", []string{"amount"}},
		{"type emptied by a swap with reason", FormExtended, callback.Completed, url.Values{"type": {""}, "reason": {"transaction"}}, "transaction_completed.json", []string{"type"}},
		{"currency differs", FormExtended, callback.Completed, url.Values{"currency": {"USD"}}, "transaction_completed.json", []string{"currency"}},
		{"order id differs", FormExtended, callback.Completed, url.Values{"order_id": {"order-2002"}}, "transaction_completed.json", []string{"order_id"}},

		// Every shape of DESIGN's table, in both forms where the form has it.
		{"chargeback_completed for the chargeback", FormExtended, callback.ChargebackCompleted, nil, "transaction_chargeback.json", nil},
		{"basic chargeback_completed for the chargeback", FormBasic, callback.ChargebackCompleted, nil, "transaction_status_chargeback.json", nil},
		{"chargeback_completed for the charged back payment", FormExtended, callback.ChargebackCompleted, parentShape, "transaction_charged_back.json", nil},
		{"basic chargeback_completed for the charged back payment", FormBasic, callback.ChargebackCompleted, parentShape, "transaction_status_charged_back.json", nil},
		{"retrieval_completed for the retrieval", FormExtended, callback.RetrievalCompleted, nil, "transaction_retrieval.json", nil},
		{"basic retrieval_completed for the retrieval", FormBasic, callback.RetrievalCompleted, nil, "transaction_status_retrieval.json", nil},
		{"retrieval_completed for the retrieved payment", FormExtended, callback.RetrievalCompleted, parentShape, "transaction_retrieved.json", nil},
		{"basic retrieval_completed for the retrieved payment", FormBasic, callback.RetrievalCompleted, parentShape, "transaction_status_retrieved.json", nil},
		{"penalty_completed for the penalty", FormExtended, callback.PenaltyCompleted, nil, "transaction_penalty.json", nil},
		{"basic penalty_completed for the penalty", FormBasic, callback.PenaltyCompleted, nil, "transaction_status_penalty.json", nil},
		{"basic refund_completed for the refund", FormBasic, callback.RefundCompleted, nil, "transaction_status_refund.json", nil},
		{"basic refund_completed for the refunded payment", FormBasic, callback.RefundCompleted, parentShape, "transaction_status_refunded_deposit.json", nil},
		{"waiting_approval for a payout held for approval", FormExtended, callback.WaitingApproval, nil, "transaction_payout_waiting_approval.json", nil},
		{"processing for a payout", FormExtended, callback.Processing, nil, "transaction_payout_processing.json", nil},
		{"processing for a verification", FormExtended, callback.Processing, nil, "transaction_verification_processing.json", nil},

		// Shapes the table does not list never confirm.
		{"chargeback_completed whose id is a refund", FormExtended, callback.ChargebackCompleted, nil, "transaction_refund.json", []string{"type"}},
		{"basic chargeback_completed whose id is a refund", FormBasic, callback.ChargebackCompleted, nil, "transaction_status_refund.json", []string{"type"}},
		{"chargeback_completed with id and reference_id swapped", FormExtended, callback.ChargebackCompleted,
			url.Values{"id": {"9007199254740993"}, "reference_id": {"9007199254740994"}}, "transaction_charged_back.json", []string{"reference_id"}},
		{"basic chargeback_completed with id and reference_id swapped reads as the payment's", FormBasic, callback.ChargebackCompleted,
			url.Values{"id": {"9007199254740993"}, "reference_id": {"9007199254740994"}}, "transaction_status_charged_back.json", nil},
		{"chargeback_completed for a payment not charged back", FormExtended, callback.ChargebackCompleted, parentShape, "transaction_completed.json", []string{"status"}},
		{"chargeback_completed for the chargeback without its parent", FormExtended, callback.ChargebackCompleted,
			url.Values{"reference_id": {""}}, "transaction_chargeback.json", []string{"reference_id"}},
		{"basic chargeback_completed for the chargeback without its parent", FormBasic, callback.ChargebackCompleted,
			url.Values{"reference_id": {""}}, "transaction_status_chargeback.json", []string{"reference_id"}},
		{"retrieval_completed whose id is the chargeback", FormExtended, callback.RetrievalCompleted, nil, "transaction_chargeback.json", []string{"type"}},
		{"retrieval_completed for a payment still charged back", FormExtended, callback.RetrievalCompleted, parentShape, "transaction_charged_back.json", []string{"status"}},
		{"penalty_completed whose id is the chargeback it fines", FormExtended, callback.PenaltyCompleted, nil, "transaction_chargeback.json", []string{"type"}},
		{"penalty_completed for the payment", FormExtended, callback.PenaltyCompleted, parentShape, "transaction_charged_back.json", []string{"type", "status"}},
		{"refund_completed for the refunded payment in the extended form", FormExtended, callback.RefundCompleted, parentShape, "transaction_refunded.json", []string{"type", "status"}},
		{"payout_completed whose id is a payment", FormExtended, callback.PayoutCompleted, nil, "transaction_completed.json", []string{"type"}},
		{"waiting_approval for a refund", FormExtended, callback.WaitingApproval, url.Values{"id": {"9007199254740994"}, "reference_id": {"9007199254740993"}},
			"transaction_refund.json", []string{"type", "status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, tt.form).Values(tt.status, tt.fields))
			require.NoError(t, err)
			c, mock := newMockClient(t, WithForm(tt.form))
			path := "transactions/" + cb.ID.String()
			if tt.form == FormBasic {
				path = "transaction/status"
			}
			rec := record(t, mock, http.MethodGet, path, fixtureResponder(t, 200, "callbacks/"+tt.fixture))

			conf, err := c.ConfirmCallback(context.Background(), cb)
			require.NotNil(t, conf)
			assert.Equal(t, tt.wantMismatches, conf.Mismatches())
			assert.Equal(t, tt.wantMismatches == nil, conf.Confirmed())
			if tt.wantMismatches == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrCallbackNotConfirmed)
				var me *CallbackMismatchError
				require.ErrorAs(t, err, &me)
				assert.Equal(t, tt.wantMismatches, me.Fields)
			}
			assert.Equal(t, cb.ID, conf.Transaction.ID)
			if tt.form == FormBasic {
				assert.Equal(t, []string{"reference_id", "user"}, conf.Unconfirmed)
				requireSignedFields(t, rec.Only(t), map[string]string{"id": cb.ID.String()})
			} else {
				assert.Empty(t, conf.Unconfirmed)
				rec.Only(t)
			}
		})
	}
}

func TestConfirmCallback_OtherTransactionNeverAgrees(t *testing.T) {
	t.Parallel()
	cb, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, FormExtended).Values(callback.Completed, url.Values{"id": {"42"}}))
	require.NoError(t, err)
	c, _ := stubFixture(t, http.MethodGet, "transactions/42", 200, "callbacks/transaction_completed.json")
	conf, err := c.ConfirmCallback(context.Background(), cb)
	require.ErrorIs(t, err, ErrCallbackNotConfirmed)
	assert.Equal(t, []string{"id", "reference_id", "type", "status", "price", "amount", "currency", "order_id", "user"}, conf.Mismatches())
	assert.Equal(t, "paygate: completed callback for transaction 42 disagrees with the gateway's record on: "+
		"id, reference_id, type, status, price, amount, currency, order_id, user", err.Error())
}

func TestConfirmCallback_LookUpErrorIsReturned(t *testing.T) {
	t.Parallel()
	cb, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, FormExtended).Values(callback.Completed, nil))
	require.NoError(t, err)
	c, _ := stubFixture(t, http.MethodGet, "transactions/"+cb.ID.String(), 404, "callbacks/error_transaction_not_found.json")
	conf, err := c.ConfirmCallback(context.Background(), cb)
	assert.ErrorIs(t, err, ErrTransactionNotFound)
	assert.NotErrorIs(t, err, ErrCallbackNotConfirmed)
	assert.Nil(t, conf)
}

func TestConfirmCallback_WithoutIDIsAValidationErrorAndSendsNothing(t *testing.T) {
	t.Parallel()
	c, mock := newSilentMock(t)
	for _, cb := range []*callback.Callback{nil, {}} {
		_, err := c.ConfirmCallback(context.Background(), cb)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "id", ve.Field)
	}
	assert.Zero(t, mock.GetTotalCallCount())
}

func TestCallbackStatus_ShapesCoverEveryCallbackStatus(t *testing.T) {
	t.Parallel()
	for _, s := range callback.Statuses() {
		shapes := CallbackShapes(s)
		require.NotEmpty(t, shapes, s)
		seen := map[TransactionType]bool{}
		for _, sh := range shapes {
			require.NotEmpty(t, sh.Types, "%s names the transaction types it is about", s)
			require.NotEmpty(t, sh.Statuses, s)
			for _, ts := range sh.Statuses {
				assert.True(t, ts.Known(), "%s maps to %s", s, ts)
			}
			for _, typ := range sh.Types {
				assert.False(t, seen[typ], "%s: the record's type %s picks one shape", s, typ)
				seen[typ] = true
			}
		}
	}
	assert.Equal(t, []CallbackShape{
		{Types: []TransactionType{TypeChargeback}, Statuses: []Status{StatusCompleted}, Child: true},
		{Types: []TransactionType{TypePayment, TypeDeposit}, Statuses: []Status{StatusChargedBack}},
	}, CallbackShapes(callback.ChargebackCompleted))
	assert.Nil(t, CallbackShapes(callback.Status("on_hold")))
}

func TestCallbackStatus_ShapesIsACopy(t *testing.T) {
	t.Parallel()
	shapes := CallbackShapes(callback.RefundCompleted)
	shapes[0].Types[0], shapes[0].Statuses[0], shapes[0].Child = TypePayment, StatusFailed, false
	assert.Equal(t, []TransactionType{TypeRefund}, CallbackShapes(callback.RefundCompleted)[0].Types)
	assert.Equal(t, []Status{StatusCompleted}, CallbackShapes(callback.RefundCompleted)[0].Statuses)
	assert.True(t, CallbackShapes(callback.RefundCompleted)[0].Child)
}

// TestCallback_SwappedValuesStillVerify records the scheme's known
// weakness: only values are signed, so moving them between fields goes
// unnoticed by the signature. ConfirmCallback is what catches it.
func TestCallback_SwappedValuesStillVerify(t *testing.T) {
	values := newTestCallbackSigner(testSecret, FormExtended).Values(callback.Completed, url.Values{"attr_ref": {"order-2002"}})
	values["order_id"], values["attr_ref"] = values["attr_ref"], values["order_id"]
	cb, err := testVerifier(t).ParseValues(values)
	require.NoError(t, err)
	assert.Equal(t, "order-2002", cb.OrderID)

	c, _ := stubFixture(t, http.MethodGet, "transactions/"+cb.ID.String(), 200, "callbacks/transaction_completed.json")
	conf, err := c.ConfirmCallback(context.Background(), cb)
	require.ErrorIs(t, err, ErrCallbackNotConfirmed)
	assert.False(t, conf.Confirmed())
	assert.Equal(t, []string{"order_id"}, conf.Mismatches())
}
