package paygate_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/paygate/paygate-go/paygatetest"
)

// The integration tests run the SDK's services against the sandbox
// (paygatetest) over HTTP, in both forms of the interface.

// forms are the two forms of the interface every flow that exists in both
// is run in.
var forms = []paygate.Form{paygate.FormExtended, paygate.FormBasic}

// forEachForm runs test as a subtest named after each form.
func forEachForm(t *testing.T, test func(t *testing.T, form paygate.Form)) {
	t.Helper()
	for _, form := range forms {
		t.Run(form.String(), func(t *testing.T) { test(t, form) })
	}
}

// forEachSandbox runs test as a subtest named after each form, with a new
// sandbox speaking that form.
func forEachSandbox(t *testing.T, test func(t *testing.T, sb *sandbox)) {
	t.Helper()
	forEachForm(t, func(t *testing.T, form paygate.Form) { test(t, newSandbox(t, form)) })
}

// sandboxStart is the frozen time every test sandbox starts at, so that
// token expiry and recurring frequency move only with Advance.
var sandboxStart = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// sandbox is a running sandbox and an SDK client of its project.
type sandbox struct {
	srv    *paygatetest.Server
	client *paygate.Client
	form   paygate.Form
}

// newSandbox starts a sandbox speaking form, with a frozen clock and a
// short processing delay, closed when the test ends.
func newSandbox(t testing.TB, form paygate.Form, opts ...paygatetest.Option) *sandbox {
	t.Helper()
	all := append([]paygatetest.Option{
		paygatetest.WithForm(form),
		paygatetest.WithClock(paygatetest.NewClock(sandboxStart)),
		paygatetest.WithProcessingDelay(20 * time.Millisecond),
	}, opts...)
	srv := paygatetest.NewServer(all...)
	t.Cleanup(srv.Close)
	return &sandbox{srv: srv, client: srv.Client(), form: form}
}

// testCtx is the context of sandbox calls: a hung sandbox fails the call
// within deadline.Limit.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), deadline.Limit)
	t.Cleanup(cancel)
	return ctx
}

// user resolves a user of the sandbox's project with every field the
// basic form requires.
func (sb *sandbox) user(t testing.TB, identifier string) paygate.UserID {
	t.Helper()
	id, err := sb.client.Users.Resolve(testCtx(t), &paygate.ResolveUserParams{
		Identifier: identifier,
		Email:      identifier + "@example.com",
		IP:         "203.0.113.7",
	})
	require.NoError(t, err)
	require.NotEmpty(t, id)
	return id
}

// token tokenizes a test card that expires in December 2030.
func (sb *sandbox) token(t testing.TB, number string) string {
	t.Helper()
	tok, err := sb.client.Cards.Tokenize(testCtx(t), &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(number), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	require.NoError(t, err)
	require.NotEmpty(t, tok.ID)
	return tok.ID
}

// chargeParams is a charge of price EUR for order orderID with a fresh
// token of card.
func (sb *sandbox) chargeParams(t testing.TB, user paygate.UserID, card, price, orderID string) *paygate.ChargeParams {
	t.Helper()
	return &paygate.ChargeParams{
		User:        user,
		CardToken:   paygate.NewCardToken(sb.token(t, card)),
		Price:       decimal.RequireFromString(price),
		Currency:    "EUR",
		Description: "Order " + orderID,
		OrderID:     orderID,
	}
}

// charge charges card for a new user and returns the payment.
func (sb *sandbox) charge(t testing.TB, card, price, orderID string) *paygate.Payment {
	t.Helper()
	pay, err := sb.tryCharge(t, card, price, orderID)
	require.NoError(t, err)
	require.NotZero(t, pay.ID)
	return pay
}

// tryCharge charges card for a new user with a fresh token and returns
// what the gateway answered.
func (sb *sandbox) tryCharge(t testing.TB, card, price, orderID string) (*paygate.Payment, error) {
	t.Helper()
	return sb.client.Cards.Charge(testCtx(t), sb.chargeParams(t, sb.user(t, "cust-"+orderID), card, price, orderID))
}

// chargeTokenTwice charges one token of the approved card for order ord-1,
// requiring that to succeed, then again for order ord-2, and returns the
// second charge's error.
func (sb *sandbox) chargeTokenTwice(t testing.TB) error {
	t.Helper()
	params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
	_, err := sb.client.Cards.Charge(testCtx(t), params)
	require.NoError(t, err)
	params.OrderID = "ord-2"
	_, err = sb.client.Cards.Charge(testCtx(t), params)
	return err
}

// reverse reverses amount (in the payment's currency) of the payment id.
func (sb *sandbox) reverse(t testing.TB, id paygate.ID, amount string) (*paygate.Payment, error) {
	t.Helper()
	return sb.client.Transactions.Reverse(testCtx(t), &paygate.ReverseParams{ID: id, Amount: dec(amount)})
}

// chargeSubscribing charges user 9.99 EUR (order sub-1) with the approved
// card, subscribing them to recurring payments at most every days days.
func (sb *sandbox) chargeSubscribing(t testing.TB, user paygate.UserID, days int) *paygate.Payment {
	t.Helper()
	params := sb.chargeParams(t, user, paygatetest.CardApproved, "9.99", "sub-1")
	params.Recurring = true
	params.RecurringInterval = paygate.Days(days)
	pay, err := sb.client.Cards.Charge(testCtx(t), params)
	require.NoError(t, err)
	return pay
}

// status reads a transaction's status by id; the one way to read it in both
// forms.
func (sb *sandbox) status(t testing.TB, id paygate.ID) *paygate.TransactionStatus {
	t.Helper()
	st, err := sb.client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: id})
	require.NoError(t, err)
	require.Equal(t, id, st.ID)
	return st
}

// balance reads the EUR balance (extended form).
func (sb *sandbox) balance(t testing.TB) decimal.Decimal {
	t.Helper()
	b, err := sb.client.Balance.Get(testCtx(t), &paygate.BalanceParams{Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, "EUR", b.Currency)
	return b.Amount
}

// paymentType is the type the status endpoint gives a card payment in
// form: the basic form calls it a deposit.
func paymentType(form paygate.Form) paygate.TransactionType {
	if form == paygate.FormBasic {
		return paygate.TypeDeposit
	}
	return paygate.TypePayment
}

// dec parses a decimal literal of a test.
func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// fee is the sandbox's fee for price: 2.9%, to four decimals.
func fee(price string) decimal.Decimal {
	return dec(price).Mul(dec("0.029")).Round(4)
}

// receiver is a merchant's callback endpoint: the SDK's callback.Handler on
// an httptest server, keeping every callback it processed.
type receiver struct {
	URL string

	mu      sync.Mutex
	got     []*callback.Callback
	changed chan struct{}
}

// newReceiver starts a callback endpoint verifying with privateKey, behind
// the middleware given, if any.
func newReceiver(t testing.TB, privateKey string, middleware ...func(http.Handler) http.Handler) *receiver {
	t.Helper()
	rc := &receiver{changed: make(chan struct{})}
	h, err := callback.NewHandler([]string{privateKey}, func(_ context.Context, cb *callback.Callback) error {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.got = append(rc.got, cb)
		close(rc.changed)
		rc.changed = make(chan struct{})
		return nil
	})
	require.NoError(t, err)
	var handler http.Handler = h
	for _, m := range middleware {
		handler = m(handler)
	}
	rc.URL = serveCallbacks(t, handler).URL
	return rc
}

// serveCallbacks serves h as a merchant's callback endpoint until the test
// ends. A handler stuck in its store or its function is answered 503 after
// deadline.Limit, so that the sandbox and the server's Close are never
// stuck with it.
func serveCallbacks(t testing.TB, h http.Handler) *httptest.Server {
	hs := httptest.NewServer(http.TimeoutHandler(h, deadline.Limit, "callback handler stuck"))
	t.Cleanup(hs.Close)
	return hs
}

// wait returns the callback of transaction id with status, waiting for it
// up to deadline.Limit.
func (rc *receiver) wait(t testing.TB, id paygate.ID, status callback.Status) *callback.Callback {
	t.Helper()
	timer := time.NewTimer(deadline.Limit)
	defer timer.Stop()
	for {
		rc.mu.Lock()
		changed := rc.changed
		for _, cb := range rc.got {
			if cb.ID == id && cb.Status == status {
				rc.mu.Unlock()
				return cb
			}
		}
		rc.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("no %s callback for transaction %s within %v", status, id, deadline.Limit)
		}
	}
}

// callbacks returns a copy of every callback processed so far.
func (rc *receiver) callbacks() []*callback.Callback {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*callback.Callback(nil), rc.got...)
}

// rewriteTransport changes the parameters of every request before it
// leaves, and signs it again with secret when it was signed. The SDK
// checks its input before sending, so this is how a test makes the sandbox
// see what an SDK call never sends (a missing card number, a missing
// project), while the answer still goes through the SDK's error mapping.
// It counts the requests it sent.
type rewriteTransport struct {
	secret  string
	rewrite func(v url.Values)
	// unsigned drops the signature instead of signing again.
	unsigned bool
	// rawBody, when set, replaces a POST body as it is.
	rawBody string
	sent    atomic.Int32
}

func (rt *rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.sent.Add(1)
	out := req.Clone(req.Context())
	var v url.Values
	if req.Method == http.MethodGet {
		v = req.URL.Query()
	} else {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if v, err = url.ParseQuery(string(body)); err != nil {
			return nil, err
		}
	}
	signed := v.Has(paygate.SignatureParam)
	v.Del(paygate.SignatureParam)
	if rt.rewrite != nil {
		rt.rewrite(v)
	}
	if signed && !rt.unsigned {
		v.Set(paygate.SignatureParam, paygate.Sign(v, rt.secret))
	}
	encoded := v.Encode()
	if req.Method == http.MethodGet {
		out.URL.RawQuery = encoded
	} else {
		if rt.rawBody != "" {
			encoded = rt.rawBody
		}
		out.Body = io.NopCloser(strings.NewReader(encoded))
		out.ContentLength = int64(len(encoded))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(encoded)), nil }
	}
	return http.DefaultTransport.RoundTrip(out)
}

// rewritingClient is a client of sb's project whose requests rt rewrites.
func (sb *sandbox) rewritingClient(rt *rewriteTransport, opts ...paygate.Option) *paygate.Client {
	rt.secret = sb.srv.PrivateKey
	return sb.srv.Client(append([]paygate.Option{paygate.WithHTTPClient(&http.Client{Transport: rt})}, opts...)...)
}

// countingClient is a client of sb's project that sends its requests
// unchanged and counts them.
func (sb *sandbox) countingClient() (*paygate.Client, *atomic.Int32) {
	rt := &rewriteTransport{}
	return sb.rewritingClient(rt), &rt.sent
}

// postForm POSTs a form as a browser does, without following a redirect.
func postForm(t testing.TB, target string, form url.Values) *http.Response {
	t.Helper()
	hc := &http.Client{Timeout: deadline.Limit, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Post(target, "application/x-www-form-urlencoded", bytes.NewBufferString(form.Encode()))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// requireErrorStatus checks that err matches want and is the gateway's
// error answered with HTTP status.
func requireErrorStatus(t *testing.T, err, want error, status int) {
	t.Helper()
	require.ErrorIs(t, err, want)
	var apiErr *paygate.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.HTTPStatus)
}
