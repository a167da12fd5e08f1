package paygatetest_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// hiddenField finds an input's value in an HTML page.
func hiddenField(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `" value="([^"]*)"`).FindStringSubmatch(page)
	require.NotNil(t, m, "no field %s in %s", name, page)
	return m[1]
}

// passACS walks the ACS pages as a browser would and returns the fields the
// last page POSTs to its form action, and that action.
func passACS(t *testing.T, s *sandbox, acs map[string]any, password string) (action string, posted url.Values) {
	t.Helper()
	params := acs["parameters"].(map[string]any)
	form := url.Values{"PaReq": {params["PaReq"].(string)}, "MD": {params["MD"].(string)}, "TermUrl": {params["TermUrl"].(string)}}
	page := string(s.in(t).rawOK(http.MethodPost, "/acs", form))
	require.Contains(t, page, `type="password"`)
	carried := url.Values{"password": {password}}
	for _, name := range []string{"PaReq", "MD", "TermUrl"} {
		carried.Set(name, hiddenField(t, page, name))
	}
	page = string(s.in(t).rawOK(http.MethodPost, "/acs", carried))
	assert.Contains(t, page, "submit()", "the return form submits itself")
	m := regexp.MustCompile(`<form method="post" action="([^"]*)"`).FindStringSubmatch(page)
	require.NotNil(t, m, page)
	return m[1], url.Values{"PaRes": {hiddenField(t, page, "PaRes")}, "MD": {hiddenField(t, page, "MD")}}
}

func TestACS_RoundTripCompletesThePayment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, password string
		status         paygate.Status
		success        bool
	}{
		{"right password", paygatetest.ACSPassword, paygate.StatusCompleted, true},
		{"wrong password", "0000", paygate.StatusFailed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			charge := s.charge(s.user("u"), paygatetest.Card3DSecure, url.Values{"acs_return_url": {"https://shop.example/3ds/return"}, "remember": {"1"}})
			require.Equal(t, "authenticating", charge["status"])
			action, posted := passACS(t, s, charge["acs"].(map[string]any), tc.password)
			assert.Equal(t, "https://shop.example/3ds/return", action)
			assert.Equal(t, charge["acs"].(map[string]any)["parameters"].(map[string]any)["MD"], posted.Get("MD"))

			out := s.ok("card/authenticate", posted)
			assert.Equal(t, idOf(charge), idOf(out))
			assert.Equal(t, tc.success, out["success"])
			assert.Equal(t, string(tc.status), out["status"])
			assert.Contains(t, out, "card")
			if tc.success {
				assert.NotEmpty(t, out["permanentToken"], "the permanent token comes with the authentication")
			}
			assert.Equal(t, string(tc.status), s.ok("transaction/status", url.Values{"id": {idOf(charge)}})["status"])
			s.fails("card/authenticate", posted, paygate.CodeTransactionCompleted)
		})
	}
}

func TestACS_GETShowsThePasswordForm(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	charge := s.charge(s.user("u"), paygatetest.Card3DSecure, url.Values{"acs_return_url": {"https://shop.example/r"}})
	params := charge["acs"].(map[string]any)["parameters"].(map[string]any)
	page := string(s.rawOK(http.MethodGet, "/acs", url.Values{"PaReq": {params["PaReq"].(string)}, "MD": {params["MD"].(string)}, "TermUrl": {"https://shop.example/r"}}))
	assert.Contains(t, page, `type="password"`)
	assert.Equal(t, "https://shop.example/r", hiddenField(t, page, "TermUrl"))

	status, _ := s.do(http.MethodGet, "/acs", url.Values{"MD": {"unknown"}})
	assert.Equal(t, http.StatusBadRequest, status)
}

func TestAuthenticate_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.fails("card/authenticate", url.Values{"MD": {"x"}}, paygate.CodeMerchantDataMissing)
	s.fails("card/authenticate", url.Values{"PaRes": {"x"}}, paygate.CodeMerchantDataMissing)
	s.fails("card/authenticate", url.Values{"PaRes": {"x"}, "MD": {"unknown"}}, paygate.CodeTransactionNotFound)
}

func TestAuthenticate_ForgedPaResFailsThePayment(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	charge := s.charge(s.user("u"), paygatetest.Card3DSecure, nil)
	md := charge["acs"].(map[string]any)["parameters"].(map[string]any)["MD"].(string)
	out := s.ok("card/authenticate", url.Values{"PaRes": {"forged"}, "MD": {md}})
	assert.Equal(t, false, out["success"])
	assert.Equal(t, "failed", out["status"])
}

func TestPaRes_IsWhatTheACSPagePostsBack(t *testing.T) {
	t.Parallel()
	for _, password := range []string{paygatetest.ACSPassword, "wrong"} {
		s := newSandbox(t)
		charge := s.charge(s.user("u"), paygatetest.Card3DSecure, url.Values{"acs_return_url": {"https://shop.example/r"}})
		_, posted := passACS(t, s, charge["acs"].(map[string]any), password)
		assert.Equal(t, posted.Get("PaRes"), s.srv.PaRes(posted.Get("MD"), password))
	}
}
