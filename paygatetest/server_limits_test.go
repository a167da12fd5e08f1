package paygatetest_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// cutOff reports whether the server ends the connection (an answer or a
// close) within limit after the client wrote partial.
func cutOff(t *testing.T, addr, partial string, limit time.Duration) bool {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, partial)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(limit)))
	_, err = io.ReadAll(conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func TestServer_SlowClientsAreCutOff(t *testing.T) {
	s := newSandbox(t, paygatetest.WithServerTimeouts(100*time.Millisecond, 200*time.Millisecond, time.Second, 100*time.Millisecond))
	addr := strings.TrimPrefix(s.srv.URL, "http://")
	assert.True(t, cutOff(t, addr, "POST /v1/user/resolve HTTP/1.1\r\nHost: x\r\n", 5*time.Second),
		"headers that never end (slowloris)")
	standalone, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithServerTimeouts(100*time.Millisecond, 200*time.Millisecond, time.Second, 100*time.Millisecond))
	require.NoError(t, err)
	defer standalone.Close()
	assert.True(t, cutOff(t, strings.TrimPrefix(standalone.URL, "http://"), "GET /v1/payout-types HTTP/1.1\r\n", 5*time.Second),
		"a server started by Listen, as cmd/paygate-sandbox starts it")
	assert.True(t, cutOff(t, addr, "POST /v1/user/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nproject=", 5*time.Second),
		"a body that never ends")

	// An idle keep-alive connection is closed too.
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /v1/payout-types?project="+s.srv.ProjectKey+" HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the idle connection was closed")
}

func TestServer_HugeParametersAreRefusedBeforeParsing(t *testing.T) {
	s := newSandbox(t)
	uid := s.user("u")
	huge := "1" + strings.Repeat("0", 900000)
	for _, tc := range []struct {
		method string
		v      url.Values
	}{
		{"card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {huge}, "currency": {"EUR"}, "description": {"d"}}},
		{"user/resolve", url.Values{"identifier": {huge}, "ip": {"192.0.2.1"}}},
		{"transactions", url.Values{"orderId": {"o"}, "page": {huge}}},
	} {
		status, out := s.call(tc.method, tc.v)
		requireError(t, status, out, 40000)
		assert.Contains(t, out["error"].(map[string]any)["message"], "longer than", tc.method)
	}
	// A price that is long but within the bound is still no number the
	// balance can take: 40014 naming it, and the balance is untouched.
	long := "1" + strings.Repeat("0", 1000)
	s.fails("card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {long},
		"currency": {"EUR"}, "description": {"d"}}, paygate.CodeMerchantDataMissing)
	assert.Equal(t, "0.00", s.ok("balance", nil)["amount"])
	s.charge(uid, paygatetest.CardApproved, nil)
	assert.Equal(t, "9.71", s.ok("balance", nil)["amount"], "the balance still adds up")
}

func TestServer_TooManyParametersAndOversizedBodiesAreRefused(t *testing.T) {
	s := newSandbox(t)
	many := url.Values{"identifier": {"u"}, "ip": {"192.0.2.1"}}
	for i := range 300 {
		many.Set("attr_"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26), "v")
	}
	s.fails("user/resolve", many, 40000)

	body := strings.NewReader("project=" + s.srv.ProjectKey + "&" + strings.Repeat("a", 2<<20))
	resp, err := http.Post(s.srv.URL+"/v1/user/resolve", "application/x-www-form-urlencoded", body)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := decodeReader(resp.Body)
	require.NoError(t, err)
	requireError(t, resp.StatusCode, got, 40000)
}

func TestServer_BasicFormNeverGetsAnExtendedOnlyCode(t *testing.T) {
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
	uid := s.user("u")
	for _, tc := range []struct {
		name   string
		method string
		v      url.Values
	}{
		{"no price", "card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "currency": {"EUR"}, "description": {"d"}}},
		{"order id too long", "card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}, "order_id": {strings.Repeat("o", 65)}}},
		{"status without id", "transaction/status", nil},
		{"reverse without amount", "transaction/reverse", url.Values{"id": {"1"}}},
		{"payout-parameters of SEPA in USD", "payout-parameters", url.Values{"type": {sepaPayout}, "account": {"DE89370400440532013000"}, "currency": {"USD"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { s.in(t).fails(tc.method, tc.v, 40000) })
	}
	s.rawFails(http.MethodGet, "/v1/card/getToken", s.withProject(url.Values{"number": {paygatetest.CardApproved},
		"expiration_month": {"12"}, "expiration_year": {"2030"}, "security_code": {"123"}, "holder": {strings.Repeat("H", 22)}}), 40000)
}
