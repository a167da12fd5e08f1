package paygate

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// Keys and address the unit tests use.
const (
	testProject = "pk_test_2f9c"
	testSecret  = "sk_test_5b1e07d6"
	testBaseURL = "https://gateway.test"
)

// newTestCallbackSigner is paygatetest.NewCallbackSigner, for this
// package's own tests: the same builder of callbacks.
func newTestCallbackSigner(privateKey string, f Form) *callbackform.Signer[callback.Status] {
	return callbackform.NewSigner[callback.Status]("paygatetest.CallbackSigner", privateKey, f == FormBasic)
}

// testVerifier returns a verifier of callbacks signed with testSecret.
func testVerifier(t testing.TB) *callback.Verifier {
	t.Helper()
	v, err := callback.NewVerifier([]string{testSecret})
	require.NoError(t, err)
	return v
}

// newMockClient returns a client whose transport is an httpmock transport,
// with retries off unless opts say otherwise.
func newMockClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	all := append([]Option{
		WithBaseURL(testBaseURL),
		WithHTTPClient(&http.Client{Transport: mock}),
		WithRetryPolicy(NoRetries),
	}, opts...)
	c, err := NewClient(testProject, testSecret, all...)
	require.NoError(t, err)
	return c, mock
}

// newSilentMock is newMockClient with a catch-all responder, so that any
// request at all shows in the mock's call count.
func newSilentMock(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	c, mock := newMockClient(t, opts...)
	mock.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("unexpected request")
	})
	return c, mock
}

// requireRejectedLocally runs call on a silent mock client built with opts
// and checks that it fails with a *ValidationError naming field before any
// request is sent. It returns the error for further checks.
func requireRejectedLocally(t *testing.T, field string, call func(*Client) error, opts ...Option) error {
	t.Helper()
	c, mock := newSilentMock(t, opts...)
	err := call(c)
	requireValidationError(t, err, field)
	assert.Zero(t, mock.GetTotalCallCount(), "no request may be sent")
	return err
}

// rejectCase is a params value an endpoint must refuse before sending, and
// the field the refusal must name.
type rejectCase[P any] struct {
	name   string
	params *P
	field  string
}

// editCase is a change that makes a valid params value one the endpoint
// must refuse, and the field the refusal must name.
type editCase[P any] struct {
	name   string
	change func(*P)
	field  string
}

// edited turns each change into a rejectCase by applying it to a fresh
// valid value.
func edited[P any](valid func() *P, cases []editCase[P]) []rejectCase[P] {
	out := make([]rejectCase[P], len(cases))
	for i, tc := range cases {
		out[i] = rejectCase[P]{tc.name, edit(valid(), tc.change), tc.field}
	}
	return out
}

// testRejectedLocally runs requireRejectedLocally for each case, as a
// subtest, calling the endpoint through with(params) on a client built with
// opts; check, when not nil, makes further checks of each error.
func testRejectedLocally[P any](t *testing.T, with func(*P) func(*Client) error, cases []rejectCase[P], check func(*testing.T, error), opts ...Option) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := requireRejectedLocally(t, tc.field, with(tc.params), opts...)
			if check != nil {
				check(t, err)
			}
		})
	}
}

// requireValidationError checks that err is a *ValidationError naming field.
func requireValidationError(t *testing.T, err error, field string) {
	t.Helper()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, field, ve.Field)
	assert.Contains(t, err.Error(), field)
}

// edit applies change to p and returns it, for tables of one-field
// variations of a valid value.
func edit[T any](p *T, change func(*T)) *T {
	change(p)
	return p
}

// fixture returns the bytes of testdata/<name>.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// fixtureResponder answers with status and the fixture as a JSON body.
func fixtureResponder(t testing.TB, status int, name string) httpmock.Responder {
	body := fixture(t, name)
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewBytesResponse(status, body)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}

// recorded is one request a mocked endpoint received, its body read.
type recorded struct {
	Method string
	Path   string
	Header http.Header
	// Params are the query (GET) or form body (POST) parameters.
	Params url.Values
	// Raw is the raw query or body.
	Raw string
}

// recorder keeps the requests a mocked endpoint received.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

// Requests returns what was received so far.
func (r *recorder) Requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

// Only returns the one request the test expects.
func (r *recorder) Only(t testing.TB) recorded {
	t.Helper()
	reqs := r.Requests()
	require.Len(t, reqs, 1, "exactly one request should have been sent")
	return reqs[0]
}

// record registers responder for "METHOD path" (path below /v1/, without
// query) and records every request it receives.
func record(t testing.TB, mock *httpmock.MockTransport, method, path string, responder httpmock.Responder) *recorder {
	t.Helper()
	rec := &recorder{}
	mock.RegisterResponder(method, testBaseURL+"/v1/"+path, func(req *http.Request) (*http.Response, error) {
		raw := req.URL.RawQuery
		if req.Body != nil {
			b, err := io.ReadAll(req.Body)
			if err != nil {
				return nil, err
			}
			if method != http.MethodGet {
				raw = string(b)
			}
		}
		params, err := url.ParseQuery(raw)
		if err != nil {
			return nil, err
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Params: params, Raw: raw})
		rec.mu.Unlock()
		return responder(req)
	})
	return rec
}

// stubEndpoint returns a mock client built with opts whose "METHOD path"
// (path below /v1/) answers with responder, and the recorder of the
// requests that endpoint receives.
func stubEndpoint(t *testing.T, method, path string, responder httpmock.Responder, opts ...Option) (*Client, *recorder) {
	t.Helper()
	c, mock := newMockClient(t, opts...)
	return c, record(t, mock, method, path, responder)
}

// stubFixture is stubEndpoint answering with status and testdata/<name>
// as a JSON body.
func stubFixture(t *testing.T, method, path string, status int, name string, opts ...Option) (*Client, *recorder) {
	t.Helper()
	return stubEndpoint(t, method, path, fixtureResponder(t, status, name), opts...)
}

// exchange stubs "METHOD path" with the fixture at status 200, runs call
// on a client built with opts, requires it to succeed and returns its
// result and the one request it sent, checked to be "METHOD /v1/path".
func exchange[R any](t *testing.T, method, path, fixture string, call func(*Client) (R, error), opts ...Option) (R, recorded) {
	t.Helper()
	c, rec := stubFixture(t, method, path, 200, fixture, opts...)
	got, err := call(c)
	require.NoError(t, err)
	r := rec.Only(t)
	assert.Equal(t, method, r.Method)
	assert.Equal(t, "/v1/"+path, r.Path)
	return got, r
}

// requestSent is exchange for a call whose result does not matter: it
// returns the one request sent.
func requestSent(t *testing.T, method, path, fixture string, call func(*Client) error, opts ...Option) recorded {
	t.Helper()
	_, r := exchange(t, method, path, fixture, func(c *Client) (struct{}, error) { return struct{}{}, call(c) }, opts...)
	return r
}

// requireSigned checks the project key, that the signature verifies under
// the test secret over exactly the values sent, and that it is sent once,
// as the last field (the pipeline appends it to the encoded body).
func requireSigned(t testing.TB, r recorded) {
	t.Helper()
	require.Equal(t, testProject, r.Params.Get("project"))
	require.NoError(t, VerifySignature(r.Params, testSecret), "signature must verify over the sent values")
	require.Len(t, r.Params[SignatureParam], 1)
	assert.True(t, strings.HasSuffix(r.Raw, "&"+SignatureParam+"="+r.Params.Get(SignatureParam)), "the signature is the last field")
}

// requireUnsigned checks the project key and that no signature was sent.
func requireUnsigned(t testing.TB, r recorded) {
	t.Helper()
	require.Equal(t, testProject, r.Params.Get("project"))
	require.NotContains(t, r.Params, SignatureParam)
}

// requireSignedFields is requireSigned and requireFields: the request
// carries the project key, a valid signature and exactly the fields want.
func requireSignedFields(t testing.TB, r recorded, want map[string]string) {
	t.Helper()
	requireSigned(t, r)
	requireFields(t, r, want)
}

// requireFields checks that exactly the given fields (besides project and
// signature) were sent, with these values, in any order.
func requireFields(t testing.TB, r recorded, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k, vs := range r.Params {
		if k == "project" || k == SignatureParam {
			continue
		}
		require.Len(t, vs, 1, "field %s sent more than once", k)
		got[k] = vs[0]
	}
	require.Equal(t, want, got)
}

// errOf keeps only the error of an endpoint call, for the func(*Client)
// error callbacks of requireRejectedLocally.
func errOf[R any](_ R, err error) error { return err }

// requireResponseError checks that err is a *ResponseError naming field,
// the part of the gateway's answer that was missing or malformed.
func requireResponseError(t testing.TB, err error, field string) {
	t.Helper()
	var re *ResponseError
	require.ErrorAs(t, err, &re)
	require.Equal(t, field, re.Field)
}

// requireMalformedAnswer answers "METHOD path" with responder, runs call
// and checks that it fails with a *ResponseError naming field. It returns
// the error for further checks.
func requireMalformedAnswer(t *testing.T, method, path string, responder httpmock.Responder, field string, call func(*Client) error) error {
	t.Helper()
	c, _ := stubEndpoint(t, method, path, responder)
	err := call(c)
	requireResponseError(t, err, field)
	return err
}

// gatewayErrorCase is an error fixture of the gateway and the sentinel its
// code must match.
type gatewayErrorCase struct {
	name    string // of the subtest; the fixture's when empty
	fixture string
	want    error
}

// testGatewayErrors runs requireGatewayError for each case, as a subtest,
// and then the further checks of its error.
func testGatewayErrors(t *testing.T, method, path string, call func(*Client) error, cases []gatewayErrorCase, checks ...func(*testing.T, error)) {
	t.Helper()
	for _, tc := range cases {
		name := tc.name
		if name == "" {
			name = tc.fixture
		}
		t.Run(name, func(t *testing.T) {
			err := requireGatewayError(t, method, path, tc.fixture, tc.want, call)
			for _, check := range checks {
				check(t, err)
			}
		})
	}
}

// requireGatewayError answers "method path" with the error fixture at the
// HTTP status the spec gives want's code, runs call, and checks that the
// error matches want, is the gateway's definite answer (not an unknown
// outcome) and carries want's code and that status. It returns the error
// for further checks.
func requireGatewayError(t *testing.T, method, path, fixture string, want error, call func(*Client) error) error {
	t.Helper()
	code := want.(*Error).Code
	c, _ := stubFixture(t, method, path, code.HTTPStatus(), fixture)
	err := call(c)
	require.ErrorIs(t, err, want)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "the gateway's error is a definite answer")
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, code, apiErr.Code)
	assert.Equal(t, code.HTTPStatus(), apiErr.HTTPStatus)
	return err
}

// timeless is the slog handler options of a test that looks for leaked
// digits: a record's time has digit runs of its own (".083175677Z" holds
// a security code "8317"), so it is left out.
var timeless = &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}}
