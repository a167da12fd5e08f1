package paygateotel_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

var (
	opCharge       = paygateotel.OperationKey.String("card/process")
	opAuthenticate = paygateotel.OperationKey.String("card/authenticate")
	opStatus       = paygateotel.OperationKey.String("transaction/status")
)

func outcome(o paygate.CallOutcome) attribute.KeyValue {
	return paygateotel.OutcomeKey.String(string(o))
}

// roundTripper is an http.RoundTripper made of a function, as an
// instrumented transport would wrap the default one.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCompletedCharge(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	var parent trace.SpanContext
	transport := roundTripper(func(r *http.Request) (*http.Response, error) {
		parent = trace.SpanContextFromContext(r.Context())
		return http.DefaultTransport.RoundTrip(r)
	})
	client := srv.Client(paygate.WithObserver(rec.obs), paygate.WithHTTPClient(&http.Client{Transport: transport}))
	_, err := client.Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-1"))
	require.NoError(t, err)

	span := rec.onlySpan(t, "card/process")
	assert.Equal(t, span.SpanContext().SpanID(), parent.SpanID(), "the transport's request carries the call's span")
	assert.Equal(t, trace.SpanKindClient, span.SpanKind())
	assert.Equal(t, codes.Unset, span.Status().Code)
	a := attrs(span)
	assert.Equal(t, "card/process", a[paygateotel.OperationKey].AsString())
	assert.Equal(t, "succeeded", a[paygateotel.OutcomeKey].AsString())
	_, hasRetries := a[paygateotel.RetriesKey]
	assert.False(t, hasRetries, "paygate.retries is set only when the request was sent again")
	_, hasResends := a["http.request.resend_count"]
	assert.False(t, hasResends, "http.request.resend_count is set only when the request was sent again")
	assert.Equal(t, "POST", a["http.request.method"].AsString())
	assert.Equal(t, int64(200), a["http.response.status_code"].AsInt64())
	assert.Equal(t, "127.0.0.1", a["server.address"].AsString())
	assert.Equal(t, "/v1/card/process", a["url.template"].AsString())
	assert.Equal(t, "ord-1", a[paygateotel.OrderIDKey].AsString())
	_, hasCode := a[paygateotel.GatewayCodeKey]
	assert.False(t, hasCode)
	assert.Empty(t, span.Events(), "one successful attempt is told by the span itself")

	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallSucceeded)))
	assert.Equal(t, uint64(1), rec.histogramCount(t, "paygate.client.call.duration", opCharge, outcome(paygate.CallSucceeded)))
}

func TestDeclinedChargeIsNotAnErrorSpan(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	pay, err := srv.Client(paygate.WithObserver(rec.obs)).Cards.Charge(testCtx(t), cardCharge(paygatetest.CardDeclined, "ord-2"))
	require.NoError(t, err)
	require.True(t, pay.Failed())

	span := rec.onlySpan(t, "card/process")
	assert.Equal(t, "declined", attrs(span)[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, codes.Unset, span.Status().Code, "a decline is the gateway's answer, not a failed call")
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallDeclined)))
}

func TestBlockedCardCarriesTheGatewayCode(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	_, err := srv.Client(paygate.WithObserver(rec.obs)).Cards.Charge(testCtx(t), cardCharge(paygatetest.CardBlocked, "ord-3"))
	require.ErrorIs(t, err, paygate.ErrCardBlocked)

	span := rec.onlySpan(t, "card/process")
	assert.Equal(t, codes.Error, span.Status().Code)
	assert.Equal(t, int64(40309), attrs(span)[paygateotel.GatewayCodeKey].AsInt64())
	assert.Equal(t, "gateway_error", attrs(span)["error.type"].AsString())
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallGatewayError),
		paygateotel.GatewayCodeKey.Int(40309)))
}

func TestThreeDSecureChargeThenAuthenticate(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	client := srv.Client(paygate.WithObserver(rec.obs))
	pay, err := client.Cards.Charge(testCtx(t), cardCharge(paygatetest.Card3DSecure, "ord-4"))
	require.NoError(t, err)
	require.True(t, pay.NeedsAuthentication())
	md := pay.ACS.Parameters.MD
	done, err := client.Cards.Authenticate(testCtx(t), &paygate.AuthenticateParams{
		PaRes: paygate.NewACSData(srv.PaRes(md, paygatetest.ACSPassword)), MD: paygate.NewACSData(md), PaymentID: pay.ID, OrderID: "ord-4",
	})
	require.NoError(t, err)
	require.True(t, done.Completed())

	assert.Equal(t, "succeeded", attrs(rec.onlySpan(t, "card/process"))[paygateotel.OutcomeKey].AsString(),
		"waiting for 3-D Secure is a successful call")
	auth := rec.onlySpan(t, "card/authenticate")
	assert.Equal(t, "succeeded", attrs(auth)[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallSucceeded)))
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opAuthenticate, outcome(paygate.CallSucceeded)))
}

func TestGETRetriedAfter503(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	client := srv.Client(paygate.WithObserver(rec.obs), paygate.WithRetryPolicy(paygate.RetryPolicy{MaxAttempts: 3}))
	pay, err := client.Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-5"))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault("transaction/status", paygatetest.FaultStatus503, 1))
	_, err = client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: pay.ID})
	require.NoError(t, err)

	span := rec.onlySpan(t, "transaction/status")
	a := attrs(span)
	assert.Equal(t, int64(1), a["http.request.resend_count"].AsInt64(), "the semantic conventions' count of resends")
	assert.Equal(t, int64(1), a[paygateotel.RetriesKey].AsInt64())
	assert.Equal(t, "succeeded", a[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, pay.ID.String(), a[paygateotel.TransactionIDKey].AsString())
	require.Len(t, span.Events(), 2)
	first := map[attribute.Key]attribute.Value{}
	for _, kv := range span.Events()[0].Attributes {
		first[kv.Key] = kv.Value
	}
	assert.Equal(t, int64(503), first["http.response.status_code"].AsInt64())
	assert.GreaterOrEqual(t, first[paygateotel.RetryWaitKey].AsFloat64(), 1.0, "Retry-After: 1 is honoured")
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.retries", opStatus))
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opStatus, outcome(paygate.CallSucceeded)))
}

func TestUnknownOutcomeAfterResetAfterCommit(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	require.NoError(t, srv.InjectFault("card/process", paygatetest.FaultResetAfterCommit, 1))
	_, err := srv.Client(paygate.WithObserver(rec.obs)).Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-6"))
	require.ErrorIs(t, err, paygate.ErrOutcomeUnknown)

	span := rec.onlySpan(t, "card/process")
	assert.Equal(t, codes.Error, span.Status().Code)
	a := attrs(span)
	assert.Equal(t, "unknown", a[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, "ord-6", a[paygateotel.OrderIDKey].AsString(), "the key to settle it with")
	require.Len(t, span.Events(), 1)
	assert.Contains(t, span.Events()[0].Attributes, attribute.String("error.type", "connection_lost"))
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.unknown_outcomes", opCharge))
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallOutcomeUnknown)))
}

func TestRefusedLocalValidation(t *testing.T) {
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	p := cardCharge(paygatetest.CardApproved, "ord-7")
	p.Currency = "EURO"
	_, err := srv.Client(paygate.WithObserver(rec.obs)).Cards.Charge(testCtx(t), p)
	var verr *paygate.ValidationError
	require.ErrorAs(t, err, &verr)

	span := rec.onlySpan(t, "card/process")
	assert.Equal(t, "refused", attrs(span)[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, codes.Error, span.Status().Code)
	assert.Empty(t, span.Events(), "nothing was sent")
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallRefused)))
}

// TestGatewayCodesOutsideTheTableShareOneSeries: a gateway (or a proxy)
// answering a new code at every call must not make a metric series per
// code; the span keeps the code as it came.
func TestGatewayCodesOutsideTheTableShareOneSeries(t *testing.T) {
	rec := newRecorded(t)
	var calls atomic.Int64
	transport := roundTripper(func(r *http.Request) (*http.Response, error) {
		code := 46000 + calls.Add(1) // 46001...: codes the error table does not list
		if calls.Load() > 300 {
			code = int64(paygate.CodeTransactionNotFound)
		}
		body := fmt.Sprintf(`{"error":{"code":%d,"message":"no such code"}}`, code)
		return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	client, err := paygate.NewClient("pk_test", "sk_test", paygate.WithBaseURL("https://gateway.test"),
		paygate.WithHTTPClient(&http.Client{Transport: transport}), paygate.WithObserver(rec.obs), paygate.WithRetryPolicy(paygate.NoRetries))
	require.NoError(t, err)
	for range 301 {
		_, err := client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: 7})
		var apiErr *paygate.Error
		require.ErrorAs(t, err, &apiErr)
	}

	data, ok := rec.metrics(t)["paygate.client.calls"].(metricdata.Sum[int64])
	require.True(t, ok)
	assert.Len(t, data.DataPoints, 2, "one series for the unlisted codes, one for 40403")
	assert.Equal(t, int64(300), rec.sum(t, "paygate.client.calls", opStatus, outcome(paygate.CallGatewayError),
		paygateotel.GatewayCodeKey.String("other")))
	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", opStatus, outcome(paygate.CallGatewayError),
		paygateotel.GatewayCodeKey.Int(40403)))
	assert.Equal(t, int64(46001), attrs(rec.ended("transaction/status")[0])[paygateotel.GatewayCodeKey].AsInt64(),
		"the span keeps the code the gateway sent")
}
