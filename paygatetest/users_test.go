package paygatetest_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestResolveUser_CreatesOnceAndReturnsTheSameID(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	first := s.user("alice")
	second := s.user("bob")
	again := s.user("alice")
	assert.Equal(t, "1", first)
	assert.Equal(t, "2", second)
	assert.Equal(t, first, again)
}

func TestResolveUser_Errors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		form paygate.Form
		v    url.Values
		code paygate.ErrorCode
	}{
		{"no identifier is 40002", paygate.FormExtended, url.Values{"ip": {"192.0.2.1"}}, paygate.CodeUserIdentifierMissing},
		{"no ip is 40011", paygate.FormExtended, url.Values{"identifier": {"u"}}, paygate.CodeUserIPMissing},
		{"basic form without email is 40010", paygate.FormBasic, url.Values{"identifier": {"u"}, "ip": {"192.0.2.1"}}, paygate.CodeUserEmailMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, paygatetest.WithForm(tc.form))
			s.fails("user/resolve", tc.v, tc.code)
		})
	}
}

func TestResolveUser_ExtendedFormNeedsNoEmail(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	out := s.ok("user/resolve", url.Values{"identifier": {"u"}, "ip": {"192.0.2.1"}, "ua": {"Mozilla/5.0"}})
	assert.Equal(t, "1", idOf(out))
}
