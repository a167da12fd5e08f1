package paygate

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfirmCallback_ComparesWithTransactionStatus(t *testing.T) {
	tests := []struct {
		name           string
		form           Form
		status         CallbackStatus
		fields         url.Values
		statusFixture  string
		wantConfirmed  bool
		wantMismatches []string
	}{
		{"completed agrees", FormExtended, CallbackCompleted, nil, "transaction_status_completed.json", true, nil},
		{"basic completed agrees", FormBasic, CallbackCompleted, nil, "transaction_status_completed.json", true, nil},
		{"completed then refunded still agrees by original status", FormExtended, CallbackCompleted, nil, "transaction_status_refunded.json", true, nil},
		{"reversed agrees with refunded", FormBasic, CallbackReversed, url.Values{"id": {"9007199254740993"}}, "transaction_status_refunded.json", true, nil},
		{"refund_completed agrees with the completed refund transaction", FormExtended, CallbackRefundCompleted, nil, "transaction_status_refund.json", true, nil},
		{"refund_completed with the refunded payment's id swapped in", FormExtended, CallbackRefundCompleted, url.Values{"id": {"9007199254740993"}}, "transaction_status_completed.json", false, []string{"status"}},
		{"completed while still processing", FormExtended, CallbackCompleted, nil, "transaction_status_processing.json", false, []string{"status"}},
		{"failed callback for a completed payment", FormExtended, CallbackFailed, nil, "transaction_status_completed.json", false, []string{"status"}},
		{"unknown status never agrees", FormExtended, "on_hold", nil, "transaction_status_completed.json", false, []string{"status"}},
		{"price differs", FormExtended, CallbackCompleted, url.Values{"price": {"1000.0000"}}, "transaction_status_completed.json", false, []string{"price"}},
		{"currency differs", FormExtended, CallbackCompleted, url.Values{"currency": {"USD"}}, "transaction_status_completed.json", false, []string{"currency"}},
		{"order id differs", FormExtended, CallbackCompleted, url.Values{"order_id": {"order-2002"}}, "transaction_status_completed.json", false, []string{"order_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := testVerifier(t).ParseValues(NewTestCallbackSigner(testSecret, tt.form).Values(tt.status, tt.fields))
			require.NoError(t, err)
			c, mock := newMockClient(t)
			rec := record(t, mock, http.MethodGet, "transaction/status", fixtureResponder(t, 200, "callbacks/"+tt.statusFixture))

			conf, err := c.ConfirmCallback(context.Background(), cb)
			require.NoError(t, err)
			assert.Equal(t, tt.wantConfirmed, conf.Confirmed())
			assert.Equal(t, tt.wantMismatches, conf.Mismatches())
			assert.Equal(t, cb.ID, conf.Transaction.ID)

			r := rec.Only(t)
			requireSignedFields(t, r, map[string]string{"id": cb.ID.String()})
		})
	}
}

func TestConfirmCallback_OtherTransactionNeverAgrees(t *testing.T) {
	cb, err := testVerifier(t).ParseValues(NewTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, url.Values{"id": {"42"}}))
	require.NoError(t, err)
	c, mock := newMockClient(t)
	record(t, mock, http.MethodGet, "transaction/status", fixtureResponder(t, 200, "callbacks/transaction_status_completed.json"))
	conf, err := c.ConfirmCallback(context.Background(), cb)
	require.NoError(t, err)
	assert.Equal(t, []string{"status", "price", "currency", "order_id"}, conf.Mismatches())
}

func TestConfirmCallback_LookUpErrorIsReturned(t *testing.T) {
	cb, err := testVerifier(t).ParseValues(NewTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, nil))
	require.NoError(t, err)
	c, mock := newMockClient(t)
	record(t, mock, http.MethodGet, "transaction/status", fixtureResponder(t, 404, "callbacks/error_transaction_not_found.json"))
	conf, err := c.ConfirmCallback(context.Background(), cb)
	assert.ErrorIs(t, err, ErrTransactionNotFound)
	assert.Nil(t, conf)
}

func TestConfirmCallback_WithoutIDIsAValidationErrorAndSendsNothing(t *testing.T) {
	c, mock := newMockClient(t)
	rec := record(t, mock, http.MethodGet, "transaction/status", fixtureResponder(t, 200, "callbacks/transaction_status_completed.json"))
	for _, cb := range []*Callback{nil, {}} {
		_, err := c.ConfirmCallback(context.Background(), cb)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "id", ve.Field)
	}
	assert.Empty(t, rec.Requests())
}

func TestCallbackStatus_TransactionStatusesCoverEveryCallbackStatus(t *testing.T) {
	for s := range callbackTransactionStatuses {
		assert.True(t, s.Known())
		for _, ts := range s.TransactionStatuses() {
			assert.True(t, ts.Known(), "%s maps to %s", s, ts)
		}
	}
	assert.Len(t, callbackTransactionStatuses, 14)
	assert.Equal(t, []Status{StatusRefunded}, CallbackRefundCompleted.TransactionStatuses())
	assert.Nil(t, CallbackStatus("on_hold").TransactionStatuses())
}
