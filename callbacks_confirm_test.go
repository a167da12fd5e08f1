package paygate

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfirmCallback_ComparesWithTheGatewaysRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		form           Form
		status         CallbackStatus
		fields         url.Values
		fixture        string // by-id record (extended) or status record (basic)
		wantMismatches []string
	}{
		{"completed agrees", FormExtended, CallbackCompleted, nil, "transaction_completed.json", nil},
		{"basic completed agrees", FormBasic, CallbackCompleted, nil, "transaction_status_completed.json", nil},
		{"completed after a full refund is stale", FormExtended, CallbackCompleted, nil, "transaction_refunded.json", []string{"status"}},
		{"basic completed after a full refund is stale", FormBasic, CallbackCompleted, nil, "transaction_status_refunded.json", []string{"status"}},
		{"reversed agrees with refunded", FormBasic, CallbackReversed, url.Values{"id": {"9007199254740993"}}, "transaction_status_refunded.json", nil},
		{"refund_completed agrees with the completed refund", FormExtended, CallbackRefundCompleted, nil, "transaction_refund.json", nil},
		{"refund_completed with id and reference_id swapped", FormExtended, CallbackRefundCompleted,
			url.Values{"id": {"9007199254740993"}, "reference_id": {"9007199254740994"}}, "transaction_refunded.json",
			[]string{"reference_id", "type", "status"}},
		{"completed while still processing", FormExtended, CallbackCompleted, nil, "transaction_processing.json", []string{"status"}},
		{"failed callback for a completed payment", FormExtended, CallbackFailed, nil, "transaction_completed.json", []string{"status"}},
		{"unknown status never agrees", FormExtended, "on_hold", nil, "transaction_completed.json", []string{"status"}},
		{"callback type other than transaction", FormExtended, CallbackCompleted, url.Values{"type": {"completed"}}, "transaction_completed.json", []string{"type"}},
		{"price differs", FormExtended, CallbackCompleted, url.Values{"price": {"1000.0000"}}, "transaction_completed.json", []string{"price"}},
		{"amount and user swapped", FormExtended, CallbackCompleted, url.Values{"amount": {"7301"}, "user": {"10.00"}}, "transaction_completed.json", []string{"amount", "user"}},
		{"amount emptied by a swap with reason", FormExtended, CallbackCompleted, url.Values{"amount": {""}, "reason": {"10.00"}}, "transaction_completed.json", []string{"amount"}},
		{"type emptied by a swap with reason", FormExtended, CallbackCompleted, url.Values{"type": {""}, "reason": {"transaction"}}, "transaction_completed.json", []string{"type"}},
		{"currency differs", FormExtended, CallbackCompleted, url.Values{"currency": {"USD"}}, "transaction_completed.json", []string{"currency"}},
		{"order id differs", FormExtended, CallbackCompleted, url.Values{"order_id": {"order-2002"}}, "transaction_completed.json", []string{"order_id"}},
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
	cb, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, url.Values{"id": {"42"}}))
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
	cb, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, nil))
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
	for _, cb := range []*Callback{nil, {}} {
		_, err := c.ConfirmCallback(context.Background(), cb)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "id", ve.Field)
	}
	assert.Zero(t, mock.GetTotalCallCount())
}

func TestCallbackStatus_TransactionStatusesCoverEveryCallbackStatus(t *testing.T) {
	t.Parallel()
	for s := range callbackTransactionStatuses {
		assert.True(t, s.Known())
		for _, ts := range s.TransactionStatuses() {
			assert.True(t, ts.Known(), "%s maps to %s", s, ts)
		}
		if s != CallbackProcessing {
			assert.NotEmpty(t, s.TransactionTypes(), "%s names the transaction types it is about", s)
		}
	}
	assert.Len(t, callbackTransactionStatuses, 14)
	assert.Len(t, callbackTransactionTypes, 13, "processing is about any type")
	assert.Equal(t, []Status{StatusCompleted}, CallbackRefundCompleted.TransactionStatuses())
	assert.Equal(t, []TransactionType{TypeRefund}, CallbackRefundCompleted.TransactionTypes())
	assert.Nil(t, CallbackStatus("on_hold").TransactionStatuses())
}
