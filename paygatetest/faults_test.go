package paygatetest_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// sdkCharge charges 10.00 EUR for order orderID through the SDK client c.
func sdkCharge(t *testing.T, c *paygate.Client, orderID string) (*paygate.Payment, error) {
	t.Helper()
	ctx := context.Background()
	user, err := c.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "buyer", Email: "buyer@example.com", IP: "192.0.2.1"})
	require.NoError(t, err)
	tok, err := c.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	return c.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID), Price: decimal.RequireFromString("10.00"),
		Currency: "EUR", Description: "order " + orderID, OrderID: orderID})
}

// inject sets a fault through via: the Go method or POST /sandbox/faults.
func (s *sandbox) inject(via, method string, f paygatetest.Fault, count int) {
	s.t.Helper()
	if via == "go" {
		require.NoError(s.t, s.srv.InjectFault(method, f, count))
		return
	}
	status, out := s.control(http.MethodPost, "/sandbox/faults", url.Values{"method": {method}, "fault": {string(f)},
		"count": {itoa(count)}})
	require.Equal(s.t, http.StatusOK, status, "%v", out)
}

func TestFaults_ResetAfterCommit_ChargeIsMadeOutcomeUnknownReconcileFindsIt(t *testing.T) {
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		c := s.srv.Client()
		s.inject(via, "card/process", paygatetest.FaultResetAfterCommit, 1)

		_, err := sdkCharge(t, c, "ord-1")
		require.ErrorIs(t, err, paygate.ErrOutcomeUnknown)
		var unknown *paygate.OutcomeUnknownError
		require.True(t, errors.As(err, &unknown))
		assert.Equal(t, "ord-1", unknown.OrderID)
		assert.Equal(t, "completed", s.lastCallback().Get("status"), "the charge was processed")

		rec, err := c.Transactions.Reconcile(context.Background(), "ord-1")
		require.NoError(t, err)
		assert.True(t, rec.Found)
		assert.True(t, rec.Completed(), "the payment went through: fulfil the order")

		_, err = sdkCharge(t, c, "ord-2")
		require.NoError(t, err, "the fault hit one call only")
	})
}

func TestFaults_TimeoutAfterCommit_OutcomeUnknownWithTheDeadline(t *testing.T) {
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		c := s.srv.Client(paygate.WithTimeout(300 * time.Millisecond))
		s.inject(via, "card/process", paygatetest.FaultTimeoutAfterCommit, 1)
		_, err := sdkCharge(t, c, "ord-1")
		require.ErrorIs(t, err, paygate.ErrOutcomeUnknown)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, "completed", s.lastCallback().Get("status"), "the charge was processed")
		// Settled by a client without the short deadline, which only the
		// hung call was meant to meet.
		rec, err := s.srv.Client().Transactions.Reconcile(context.Background(), "ord-1")
		require.NoError(t, err)
		assert.True(t, rec.Completed())
	})
}

// TestFaults_AnswersWithoutProcessing: the faults that answer do not
// process the call. A POST is never sent again; the SDK reports the
// gateway's error, or an unknown outcome when the answer is no gateway
// error object (the HTML 502 of a proxy), and Reconcile then finds nothing.
// Every fault of paygatetest.Faults has a row here, but the after-commit
// ones, which their own tests above cover.
func TestFaults_AnswersWithoutProcessing(t *testing.T) {
	cases := []struct {
		fault      paygatetest.Fault
		httpStatus int
		code       paygate.ErrorCode
		unknown    bool
	}{
		{paygatetest.FaultStatus500, 500, 50000, false},
		{paygatetest.FaultStatus503, 503, 50300, false},
		{paygatetest.FaultStatus429, 429, 42900, false},
		{paygatetest.FaultHTML502, 502, 0, true},
	}
	for _, f := range paygatetest.Faults {
		covered := f == paygatetest.FaultResetAfterCommit || f == paygatetest.FaultTimeoutAfterCommit
		for _, tc := range cases {
			covered = covered || tc.fault == f
		}
		if !covered {
			t.Errorf("fault %s has no row in TestFaults_AnswersWithoutProcessing", f)
		}
	}
	for _, tc := range cases {
		for formName, form := range forms {
			t.Run(string(tc.fault)+"/"+formName, func(t *testing.T) {
				s := newSandbox(t, paygatetest.WithForm(form))
				// Retries allowed: a POST must still be sent once only.
				c := s.srv.Client(paygate.WithRetryPolicy(paygate.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second}))
				// Each form injects the fault another way: both are covered.
				via := map[paygate.Form]string{paygate.FormExtended: "http", paygate.FormBasic: "go"}[form]
				s.inject(via, "card/process", tc.fault, 2)
				_, err := sdkCharge(t, c, "ord-1")
				var apiErr *paygate.Error
				require.True(t, errors.As(err, &apiErr), "%v", err)
				assert.Equal(t, tc.httpStatus, apiErr.HTTPStatus)
				assert.Equal(t, tc.code, apiErr.Code)
				assert.Equal(t, 1, apiErr.Attempts, "a POST is never sent again")
				assert.Equal(t, tc.unknown, errors.Is(err, paygate.ErrOutcomeUnknown))
				assert.Empty(t, s.srv.Deliveries(), "nothing was processed")
				rec, err := c.Transactions.Reconcile(context.Background(), "ord-1")
				require.NoError(t, err)
				assert.False(t, rec.Found)

				_, err = sdkCharge(t, c, "ord-2")
				require.Error(t, err, "the second of two faulted calls")
				_, err = sdkCharge(t, c, "ord-3")
				require.NoError(t, err, "the third call is processed")
			})
		}
	}
}

// TestFaults_GETsAreRetried: the status look-up is retried on 429, the
// HTML 502 and a dropped connection, and succeeds on the next attempt.
func TestFaults_GETsAreRetried(t *testing.T) {
	for _, f := range []paygatetest.Fault{paygatetest.FaultStatus429, paygatetest.FaultHTML502, paygatetest.FaultResetAfterCommit} {
		t.Run(string(f), func(t *testing.T) {
			s := newSandbox(t)
			c := s.srv.Client(paygate.WithRetryPolicy(paygate.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}))
			_, err := sdkCharge(t, c, "ord-1")
			require.NoError(t, err)
			s.inject("http", "transaction/status", f, 1)
			st, err := c.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{OrderID: "ord-1"})
			require.NoError(t, err)
			assert.Equal(t, paygate.StatusCompleted, st.Status)
		})
	}
}

// TestFaults_503RetryAfterIsHonoured: Retry-After: 1 is the least wait; a
// policy whose MaxDelay is shorter gives up at once with the 503, the
// default policy waits the second and succeeds.
func TestFaults_503RetryAfterIsHonoured(t *testing.T) {
	s := newSandbox(t)
	_, err := sdkCharge(t, s.srv.Client(), "ord-1")
	require.NoError(t, err)
	impatient := s.srv.Client(paygate.WithRetryPolicy(paygate.RetryPolicy{MaxAttempts: 3, MaxDelay: 500 * time.Millisecond}))
	s.inject("go", "transaction/status", paygatetest.FaultStatus503, 1)
	_, err = impatient.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{OrderID: "ord-1"})
	var apiErr *paygate.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatus)
	assert.Equal(t, 1, apiErr.Attempts)

	patient := s.srv.Client(paygate.WithRetryPolicy(paygate.DefaultRetryPolicy))
	s.inject("go", "transaction/status", paygatetest.FaultStatus503, 1)
	start := time.Now()
	st, err := patient.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{OrderID: "ord-1"})
	require.NoError(t, err)
	assert.Equal(t, paygate.StatusCompleted, st.Status)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "not sooner than Retry-After")
}

func TestInjectFault_Bounds(t *testing.T) {
	s := newSandbox(t)
	for _, tc := range []struct {
		method string
		fault  paygatetest.Fault
		count  int
	}{
		{"card/nope", paygatetest.FaultStatus500, 1},
		{"card/process", "status-418", 1},
		{"card/process", paygatetest.FaultStatus500, -1},
		{"card/process", paygatetest.FaultStatus500, paygatetest.MaxFaultCount + 1},
	} {
		require.ErrorIs(t, s.srv.InjectFault(tc.method, tc.fault, tc.count), paygatetest.ErrInvalidFault)
		s.controlFails(http.MethodPost, "/sandbox/faults", url.Values{"method": {tc.method}, "fault": {string(tc.fault)},
			"count": {itoa(tc.count)}}, 40000)
	}
	require.NoError(t, s.srv.InjectFault("/v1/transactions/{id}", paygatetest.FaultStatus500, 1), "a /v1/ prefix is accepted")
	status, _ := s.do(http.MethodGet, "/v1/transactions/1000000000000000001", s.signed(nil))
	assert.Equal(t, http.StatusInternalServerError, status)

	require.NoError(t, s.srv.InjectFault("balance", paygatetest.FaultStatus500, 5))
	require.NoError(t, s.srv.InjectFault("balance", paygatetest.FaultStatus500, 0), "count 0 removes it")
	s.ok("balance", nil)
}
