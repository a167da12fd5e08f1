package paygatetest_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// A remembered card is the merchant's to charge only once the charge that
// remembered it completed: a processing charge that then fails, is
// cancelled or is abandoned leaves no usable permanent token.
func TestRemember_ProcessingChargeThatEndsUnpaidLeavesNoPermanentToken(t *testing.T) {
	t.Parallel()
	for _, end := range []paygatetest.Event{paygatetest.EventFail, paygatetest.EventCancel, paygatetest.EventAbandon} {
		t.Run(string(end), func(t *testing.T) {
			s := newSandbox(t, paygatetest.WithProcessingDelay(0))
			u := s.user("buyer")
			out := s.charge(u, paygatetest.CardProcessing, url.Values{"remember": {"1"}})
			perm, _ := out["permanentToken"].(string)
			require.NotEmpty(t, perm, "the charge answers the token it will remember")
			chargePerm := url.Values{"user": {u}, "card_token": {perm}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}}
			s.fails("card/process", chargePerm, paygate.CodeCardTokenInvalid)

			s.mustTrigger("go", idOf(out), end)
			s.fails("card/process", chargePerm, paygate.CodeCardTokenInvalid)
		})
	}
}

func TestRemember_ProcessingChargeThatCompletesRemembersTheCard(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithProcessingDelay(0))
	u := s.user("buyer")
	out := s.charge(u, paygatetest.CardProcessing, url.Values{"remember": {"1"}})
	s.srv.SettlePending()
	again := s.ok("card/process", url.Values{"user": {u}, "card_token": {out["permanentToken"].(string)}, "price": {"1"},
		"currency": {"EUR"}, "description": {"d"}})
	assert.Equal(t, "processing", again["status"], "the remembered card is charged, and decides as before")
}
