package paygate

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// observedCall is what a fakeObserver heard of one call.
type observedCall struct {
	info     CallInfo
	attempts []AttemptInfo
	result   *CallResult
}

// fakeObserver records every call; its context carries traceKey so that
// a test can see which requests were made with it.
type fakeObserver struct {
	mu    sync.Mutex
	calls []*observedCall
}

type traceKey struct{}

func (o *fakeObserver) StartCall(ctx context.Context, info CallInfo) (context.Context, CallTrace) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := &observedCall{info: info}
	o.calls = append(o.calls, c)
	return context.WithValue(ctx, traceKey{}, info.Operation), &fakeTrace{o: o, c: c}
}

// only returns the one call the test expects, ended.
func (o *fakeObserver) only(t *testing.T) *observedCall {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	require.Len(t, o.calls, 1)
	require.NotNil(t, o.calls[0].result, "End was called")
	return o.calls[0]
}

type fakeTrace struct {
	o *fakeObserver
	c *observedCall
}

func (t *fakeTrace) Attempt(a AttemptInfo) {
	t.o.mu.Lock()
	defer t.o.mu.Unlock()
	t.c.attempts = append(t.c.attempts, a)
}

func (t *fakeTrace) End(r CallResult) {
	t.o.mu.Lock()
	defer t.o.mu.Unlock()
	if t.c.result != nil {
		panic("End called twice")
	}
	t.c.result = &r
}

func TestObserver_CompletedChargeIsOneSucceededAttempt(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o))
	var sawTrace any
	record(t, mock, http.MethodPost, "card/process", func(r *http.Request) (*http.Response, error) {
		sawTrace = r.Context().Value(traceKey{})
		return fixtureResponder(t, 200, "card_process_extended.json")(r)
	})
	p := validCharge()
	p.OrderID = "ord-20261122-0001"
	_, err := c.Cards.Charge(context.Background(), p)
	require.NoError(t, err)

	call := o.only(t)
	assert.Equal(t, CallInfo{Operation: "card/process", Method: "POST", ServerAddress: "gateway.test", ServerPort: 443}, call.info)
	assert.Equal(t, "card/process", sawTrace, "the request is made with the context StartCall returned")
	require.Len(t, call.attempts, 1)
	assert.Equal(t, 200, call.attempts[0].HTTPStatus)
	assert.Empty(t, call.attempts[0].ErrorClass)
	assert.False(t, call.attempts[0].Retry)
	r := call.result
	assert.Equal(t, CallSucceeded, r.Outcome)
	assert.Equal(t, 1, r.Attempts)
	assert.Equal(t, 200, r.HTTPStatus)
	assert.Equal(t, "ord-20261122-0001", r.OrderID)
	assert.Zero(t, r.GatewayCode)
	assert.Positive(t, r.Duration)
}

func TestObserver_Outcomes(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		fixture  string
		params   func() *ChargeParams
		outcome  CallOutcome
		code     ErrorCode
		attempts int
	}{
		{"declined card", 200, "card_process_failed_extended.json", validCharge, CallDeclined, 0, 1},
		{"gateway code", 400, "error_card_blocked.json", validCharge, CallGatewayError, 40309, 1},
		{"proxy page", 502, "error_bad_gateway.html", validCharge, CallOutcomeUnknown, 0, 1},
		{"refused locally", 0, "", func() *ChargeParams { return edit(validCharge(), func(p *ChargeParams) { p.Currency = "" }) }, CallRefused, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &fakeObserver{}
			c, mock := newSilentMock(t, WithObserver(o))
			if tc.fixture != "" {
				record(t, mock, http.MethodPost, "card/process", fixtureResponder(t, tc.status, tc.fixture))
			}
			_, _ = c.Cards.Charge(context.Background(), tc.params())
			r := o.only(t).result
			assert.Equal(t, tc.outcome, r.Outcome)
			assert.Equal(t, tc.code, r.GatewayCode)
			assert.Equal(t, tc.attempts, r.Attempts)
			assert.Equal(t, tc.status, r.HTTPStatus)
		})
	}
}

func TestObserver_GETRetriedAfter503ReportsEachAttemptAndItsWait(t *testing.T) {
	waits := fakeWaits(t)
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o), WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond}))
	answers := []httpmock.Responder{
		httpmock.NewStringResponder(503, "busy").HeaderSet(http.Header{"Retry-After": {"1"}}),
		fixtureResponder(t, 200, "transaction_status.json"),
	}
	n := 0
	record(t, mock, http.MethodGet, "transaction/status", func(r *http.Request) (*http.Response, error) {
		n++
		return answers[n-1](r)
	})
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 42})
	require.NoError(t, err)

	call := o.only(t)
	assert.Equal(t, "transaction/status", call.info.Operation)
	require.Len(t, call.attempts, 2)
	assert.Equal(t, AttemptInfo{Attempt: 1, HTTPStatus: 503, Retry: true, Wait: time.Second, Duration: call.attempts[0].Duration}, call.attempts[0])
	assert.Equal(t, []time.Duration{time.Second}, waits(), "the wait reported is the wait spent")
	assert.Equal(t, 200, call.attempts[1].HTTPStatus)
	assert.False(t, call.attempts[1].Retry)
	assert.Equal(t, CallSucceeded, call.result.Outcome)
	assert.Equal(t, 2, call.result.Attempts)
	assert.Equal(t, ID(42), call.result.TransactionID)
}

func TestObserver_POSTCutOffIsUnknownWithTheConnectionLost(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o), WithRetryPolicy(DefaultRetryPolicy))
	record(t, mock, http.MethodPost, "card/process", httpmock.NewErrorResponder(io.ErrUnexpectedEOF))
	p := validCharge()
	p.OrderID = "ord-7"
	_, err := c.Cards.Charge(context.Background(), p)
	require.ErrorIs(t, err, ErrOutcomeUnknown)

	call := o.only(t)
	require.Len(t, call.attempts, 1, "a POST that may have arrived is never retried")
	assert.Equal(t, ErrorClassConnectionLost, call.attempts[0].ErrorClass)
	assert.Zero(t, call.attempts[0].HTTPStatus)
	assert.Equal(t, CallOutcomeUnknown, call.result.Outcome)
	assert.Equal(t, "ord-7", call.result.OrderID)
}

func TestObserver_GETNeverAnsweredIsANetworkError(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o))
	record(t, mock, http.MethodGet, "balance", httpmock.NewErrorResponder(io.ErrUnexpectedEOF))
	_, err := c.Balance.Get(context.Background(), nil)
	require.Error(t, err)
	assert.Equal(t, CallNetworkError, o.only(t).result.Outcome)
}

func TestObserver_OperationIsTheTemplateNeverTheID(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o))
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transactions/9007199254740993123",
		fixtureResponder(t, 200, "transactions_by_id.json"))
	_, err := c.Transactions.Get(context.Background(), 9007199254740993123)
	require.NoError(t, err)
	call := o.only(t)
	assert.Equal(t, "transactions/{id}", call.info.Operation)
}

func TestObserver_DeclinedAnswersOfOtherCalls(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o))
	record(t, mock, http.MethodPost, "user/cancelRecurring", httpmock.NewStringResponder(200, `{"success":false}`))
	err := c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{User: "100452"})
	require.ErrorIs(t, err, ErrDeclined)
	assert.Equal(t, CallDeclined, o.only(t).result.Outcome)
}

// nilTraceObserver asks for nothing about any call.
type nilTraceObserver struct{ started int }

func (o *nilTraceObserver) StartCall(ctx context.Context, _ CallInfo) (context.Context, CallTrace) {
	o.started++
	return ctx, nil
}

func TestObserver_NilTraceIsAllowed(t *testing.T) {
	o := &nilTraceObserver{}
	c, _ := stubFixture(t, http.MethodPost, "card/process", 200, "card_process_extended.json", WithObserver(o))
	_, err := c.Cards.Charge(context.Background(), validCharge())
	require.NoError(t, err)
	assert.Equal(t, 1, o.started)
}

func TestObserver_RawCallsNameTheirOperationWithoutIDs(t *testing.T) {
	o := &fakeObserver{}
	c, mock := newMockClient(t, WithObserver(o))
	mock.RegisterResponder(http.MethodGet, `=~^`+testBaseURL+`/v1/`, httpmock.NewStringResponder(200, `{}`))
	var out map[string]any
	require.NoError(t, c.Call(context.Background(), http.MethodGet, "transactions/9007199254740993123", nil, &out))
	require.NoError(t, c.Call(context.Background(), http.MethodGet, "reports/merchant-42/daily", nil, &out))

	o.mu.Lock()
	defer o.mu.Unlock()
	require.Len(t, o.calls, 2)
	assert.Equal(t, "transactions/{id}", o.calls[0].info.Operation, "a known endpoint keeps its name")
	assert.Equal(t, OperationOther, o.calls[1].info.Operation, "an unknown path may hold ids")
}
