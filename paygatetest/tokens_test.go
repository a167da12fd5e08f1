package paygatetest_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestTokens_ExpiredOnesAreForgottenAfterAnHour(t *testing.T) {
	s := newSandbox(t)
	uid := s.user("u")
	old := s.token(paygatetest.CardApproved)
	charge := func(tok string) url.Values {
		return url.Values{"user": {uid}, "card_token": {tok}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}}
	}
	s.clock.Advance(10*time.Minute + time.Second)
	s.fails("card/process", charge(old), paygate.CodeCardTokenExpired)
	s.clock.Advance(time.Hour)
	fresh := s.token(paygatetest.CardApproved) // making a token forgets the expired ones
	s.fails("card/process", charge(old), paygate.CodeCardTokenInvalid)
	s.ok("card/process", charge(fresh))
}

func TestTokens_UnsignedCallersCannotGrowTheStoreBeyondItsCap(t *testing.T) {
	s := newSandbox(t, paygatetest.WithTemporaryTokenCap(5))
	uid := s.user("u")
	var toks []string
	for range 8 {
		toks = append(toks, s.token(paygatetest.CardApproved))
	}
	charge := func(tok string) url.Values {
		return url.Values{"user": {uid}, "card_token": {tok}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}}
	}
	for _, tok := range toks[:3] {
		s.fails("card/process", charge(tok), paygate.CodeCardTokenInvalid)
	}
	for _, tok := range toks[3:] {
		s.ok("card/process", charge(tok))
	}
	// Permanent tokens are made by signed charges only and are never
	// forgotten.
	perm := s.charge(uid, paygatetest.CardApproved, url.Values{"remember": {"1"}})["permanentToken"].(string)
	for range 8 {
		s.token(paygatetest.CardApproved)
	}
	s.ok("card/process", charge(perm))
}
