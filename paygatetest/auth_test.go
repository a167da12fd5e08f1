package paygatetest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestAuth_RequestsAreAuthenticatedAsTheGatewayDoes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	good := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	wrongSig := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	wrongSig.Set("signature", strings.Repeat("0", 64))
	noSig := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	noSig.Del("signature")
	noProject := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	noProject.Del("project")
	unknown := url.Values{"project": {"nope"}, "identifier": {"u1"}, "ip": {"192.0.2.1"}}
	unknown.Set("signature", paygate.Sign(unknown, s.srv.PrivateKey))
	tampered := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	tampered.Set("ip", "192.0.2.2")

	s.rawFailsEach(http.MethodPost, "/v1/user/resolve", []errorCase{
		{"no project is 40001", noProject, paygate.CodeProjectKeyMissing},
		{"unknown project is 40401", unknown, paygate.CodeProjectNotFound},
		{"no signature is 40101", noSig, paygate.CodeSignatureMissing},
		{"wrong signature is 40301", wrongSig, paygate.CodeSignatureInvalid},
		{"a changed value is 40301", tampered, paygate.CodeSignatureInvalid},
	})
	t.Run("a good signature passes", func(t *testing.T) {
		s.in(t).rawOK(http.MethodPost, "/v1/user/resolve", good)
	})
}

func TestAuth_EncodedSlashInThePathIsRouted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	body := s.rawOK(http.MethodPost, "/v1/user%2Fresolve", s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}}))
	assert.Equal(t, "1", idOf(decode(t, body)))
}

func TestAuth_ExtraParametersAreAcceptedAndSignedOver(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u1")
	v := s.signed(url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {"5"},
		"currency": {"EUR"}, "description": {"d"}, "ip": {"192.0.2.9"}})
	s.rawOK(http.MethodPost, "/v1/card/process", v)

	v = s.signed(url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {"5"},
		"currency": {"EUR"}, "description": {"d"}})
	v.Set("ip", "192.0.2.9") // not part of what was signed
	s.rawFails(http.MethodPost, "/v1/card/process", v, paygate.CodeSignatureInvalid)
}

func TestAuth_UnsignedMethodsAcceptRequestsWithOrWithoutSignature(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, tc := range []struct{ name, path string }{
		{"getToken", "/v1/card/getToken?number=4242424242424242&expiration_month=12&expiration_year=2030&security_code=123"},
		{"payout-types", "/v1/payout-types?"},
		{"payout-parameters", "/v1/payout-parameters?type=" + walletPayout + "&account=acc1&currency=EUR"},
	} {
		u, err := url.Parse(tc.path)
		require.NoError(t, err)
		q := u.Query()
		q.Set("project", s.srv.ProjectKey)
		t.Run(tc.name+" unsigned", func(t *testing.T) { s.in(t).rawOK(http.MethodGet, u.Path, q) })
		t.Run(tc.name+" signed", func(t *testing.T) { s.in(t).rawOK(http.MethodGet, u.Path, s.signed(q)) })
		t.Run(tc.name+" without project", func(t *testing.T) {
			s.in(t).rawFails(http.MethodGet, u.Path, u.Query(), paygate.CodeProjectKeyMissing)
		})
	}
}

func TestAuth_GetAndPostAreBothAccepted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	v := s.signed(url.Values{"identifier": {"u1"}, "ip": {"192.0.2.1"}})
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		assert.Equal(t, "1", idOf(decode(t, s.rawOK(m, "/v1/user/resolve", v))))
	}
}

// A wrong signature is answered with what the sandbox signed: the
// canonical string it computed (card data masked) and where its key comes
// from, never the key, so that a developer sees what differs.
func TestAuth_AWrongSignatureShowsWhatTheSandboxSigned(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithKeySource("the file /run/sandbox/key"))
	v := url.Values{"project": {s.srv.ProjectKey}, "user": {"7"}, "price": {"5.00"}, "currency": {"EUR"},
		"description": {"d"}, "card[number]": {paygatetest.CardApproved}, "card[security_code]": {"987"},
		"card[expiration_month]": {"12"}, "card[expiration_year]": {"2030"}, "card[holder]": {"JANE"}}
	v.Set("signature", paygate.Sign(v, "not-the-key"))
	status, body := s.do(http.MethodPost, "/v1/card/process", v)
	require.Equal(t, http.StatusForbidden, status)
	msg := string(body)
	assert.Contains(t, msg, `"code":40301`)
	assert.Contains(t, msg, "the file /run/sandbox/key", "where the key the sandbox signs with is")
	assert.Contains(t, msg, "**|****|****************|5.00|7|***|EUR|JANE|d|"+s.srv.ProjectKey, "the canonical string, sorted as signed, card data masked")
	for _, secret := range []string{paygatetest.CardApproved, "987", "2030", s.srv.PrivateKey} {
		assert.NotContains(t, msg, secret)
	}
}
