package paygatetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// The sandbox's payout type ids as sent on the wire.
var (
	cardPayout   = strconv.Itoa(paygatetest.PayoutCreditCard)
	sepaPayout   = strconv.Itoa(paygatetest.PayoutSEPA)
	walletPayout = strconv.Itoa(paygatetest.PayoutWallet)
)

// testStart is the frozen time tests start at.
var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sandbox is a started server and the raw HTTP plumbing to talk to it.
type sandbox struct {
	t     *testing.T
	srv   *paygatetest.Server
	clock *paygatetest.Clock
	hc    *http.Client
}

// newSandbox starts a server on a frozen clock; opts come after the clock.
func newSandbox(t *testing.T, opts ...paygatetest.Option) *sandbox {
	t.Helper()
	clock := paygatetest.NewClock(testStart)
	srv := paygatetest.NewServer(append([]paygatetest.Option{paygatetest.WithClock(clock)}, opts...)...)
	t.Cleanup(srv.Close)
	return &sandbox{t: t, srv: srv, clock: clock, hc: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// signed adds project and signature to v (a copy).
func (s *sandbox) signed(v url.Values) url.Values {
	out := url.Values{"project": {s.srv.ProjectKey}}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set("signature", paygate.Sign(out, s.srv.PrivateKey))
	return out
}

// do sends v (as is) to the raw path with the HTTP method: a query for
// GET, a form body for POST.
func (s *sandbox) do(httpMethod, path string, v url.Values) (int, []byte) {
	s.t.Helper()
	var req *http.Request
	var err error
	if httpMethod == http.MethodGet {
		req, err = http.NewRequest(httpMethod, s.srv.URL+path+"?"+v.Encode(), nil)
	} else {
		req, err = http.NewRequest(httpMethod, s.srv.URL+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	require.NoError(s.t, err)
	return s.exchange(req)
}

// exchange sends req without following redirects and returns the status
// and the whole body.
func (s *sandbox) exchange(req *http.Request) (int, []byte) {
	s.t.Helper()
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	return resp.StatusCode, body
}

// in returns s with its checks failing t: the sandbox as a subtest uses it.
func (s *sandbox) in(t *testing.T) *sandbox {
	c := *s
	c.t = t
	return &c
}

// withProject returns v (a copy) with the project key, as the unsigned
// methods take it.
func (s *sandbox) withProject(v url.Values) url.Values {
	out := url.Values{"project": {s.srv.ProjectKey}}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// rawOK sends v as is to the raw path (see do), requires HTTP 200 and
// returns the body.
func (s *sandbox) rawOK(httpMethod, path string, v url.Values) []byte {
	s.t.Helper()
	status, body := s.do(httpMethod, path, v)
	require.Equal(s.t, http.StatusOK, status, string(body))
	return body
}

// rawFails sends v as is to the raw path (see do) and requires the error
// object with code.
func (s *sandbox) rawFails(httpMethod, path string, v url.Values, code paygate.ErrorCode) {
	s.t.Helper()
	status, body := s.do(httpMethod, path, v)
	requireError(s.t, status, decode(s.t, body), code)
}

// errorCase is one request of an error table and the code it must answer.
type errorCase struct {
	name string
	v    url.Values
	code paygate.ErrorCode
}

// failsEach signs each case's values, calls method with them in a subtest
// of the case's name and requires the case's error code.
func (s *sandbox) failsEach(method string, cases []errorCase) {
	s.t.Helper()
	for _, tc := range cases {
		s.t.Run(tc.name, func(t *testing.T) { s.in(t).fails(method, tc.v, tc.code) })
	}
}

// rawFailsEach sends each case's values as is to the raw path in a subtest
// of the case's name and requires the case's error code.
func (s *sandbox) rawFailsEach(httpMethod, path string, cases []errorCase) {
	s.t.Helper()
	for _, tc := range cases {
		s.t.Run(tc.name, func(t *testing.T) { s.in(t).rawFails(httpMethod, path, tc.v, tc.code) })
	}
}

// send sends v as is to /v1/<method> with hc (GET for reads, POST for the
// rest) and decodes the answer; an answer other than HTTP 200 is an error.
// It does not touch the test's t, so any goroutine may use it.
func (s *sandbox) send(ctx context.Context, hc *http.Client, method string, v url.Values) (map[string]any, error) {
	var body io.Reader
	target := s.srv.URL + "/v1/" + method
	if httpMethodOf(method) == http.MethodGet {
		target += "?" + v.Encode()
	} else {
		body = strings.NewReader(v.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, httpMethodOf(method), target, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := decodeReader(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: HTTP %d: %v", method, resp.StatusCode, out)
	}
	return out, err
}

// call signs v and sends it to /v1/<method> (GET for reads, POST for the
// rest) and decodes the JSON answer, numbers kept exact.
func (s *sandbox) call(method string, v url.Values) (int, map[string]any) {
	s.t.Helper()
	status, body := s.do(httpMethodOf(method), "/v1/"+method, s.signed(v))
	return status, decode(s.t, body)
}

// ok calls method and requires HTTP 200.
func (s *sandbox) ok(method string, v url.Values) map[string]any {
	s.t.Helper()
	status, out := s.call(method, v)
	require.Equal(s.t, http.StatusOK, status, "answer: %v", out)
	return out
}

// fails calls method and requires the error object with code.
func (s *sandbox) fails(method string, v url.Values, code paygate.ErrorCode) {
	s.t.Helper()
	s.rawFails(httpMethodOf(method), "/v1/"+method, s.signed(v), code)
}

func requireError(t *testing.T, status int, out map[string]any, code paygate.ErrorCode) {
	t.Helper()
	require.Equal(t, code.HTTPStatus(), status, "answer: %v", out)
	e, ok := out["error"].(map[string]any)
	require.True(t, ok, "no error object in %v", out)
	require.Equal(t, json.Number(strconv.Itoa(int(code))), e["code"])
	require.NotEmpty(t, e["message"])
}

// user resolves a user and returns its internal id.
func (s *sandbox) user(identifier string) string {
	s.t.Helper()
	out := s.ok("user/resolve", url.Values{"identifier": {identifier}, "email": {identifier + "@example.com"}, "ip": {"192.0.2.1"}})
	return string(out["id"].(json.Number))
}

// token returns a temporary token of the card.
func (s *sandbox) token(number string) string {
	s.t.Helper()
	body := s.rawOK(http.MethodGet, "/v1/card/getToken", s.withProject(url.Values{
		"number": {number}, "expiration_month": {"12"}, "expiration_year": {"2030"}, "security_code": {"123"},
	}))
	return decode(s.t, body)["id"].(string)
}

// charge charges the card for user with extra parameters and returns the
// answer (HTTP 200 required).
func (s *sandbox) charge(userID, number string, extra url.Values) map[string]any {
	s.t.Helper()
	v := url.Values{"user": {userID}, "card_token": {s.token(number)}, "price": {"10.00"}, "currency": {"EUR"},
		"description": {"test order"}}
	for k, vs := range extra {
		v[k] = vs
	}
	return s.ok("card/process", v)
}

func httpMethodOf(method string) string {
	switch {
	case method == "transaction/status", method == "balance", method == "payout-types",
		method == "payout-parameters", method == "card/getToken", strings.HasPrefix(method, "transactions"):
		return http.MethodGet
	}
	return http.MethodPost
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	out, err := decodeReader(bytes.NewReader(body))
	require.NoError(t, err, "body: %s", body)
	return out
}

func decodeReader(r io.Reader) (map[string]any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var out map[string]any
	err := dec.Decode(&out)
	return out, err
}

// withValue returns a copy of base with k set to v, or without k when v is
// empty: one variation of a valid request for an error table.
func withValue(base url.Values, k, v string) url.Values {
	out := url.Values{}
	for bk, bv := range base {
		out[bk] = bv
	}
	if v == "" {
		out.Del(k)
	} else {
		out.Set(k, v)
	}
	return out
}

func idOf(m map[string]any) string {
	switch v := m["id"].(type) {
	case json.Number:
		return string(v)
	case string:
		return v
	}
	return ""
}

// jsonNumber is n as the decoder of these tests reads a JSON number.
func jsonNumber[T int | string](n T) json.Number {
	switch v := any(n).(type) {
	case int:
		return json.Number(strconv.Itoa(v))
	case string:
		return json.Number(v)
	}
	return ""
}
