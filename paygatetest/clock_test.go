package paygatetest_test

import (
	"math"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
)

func TestClock_AdvanceBeyondADurationStaysInTheFuture(t *testing.T) {
	s := newSandbox(t)
	uid := s.user("u")
	s.subscribe(uid, "1")
	s.clock.Advance(math.MaxInt64)
	far := s.clock.Now()
	s.clock.Advance(math.MaxInt64)
	assert.False(t, s.clock.Now().Before(far), "the clock did not wrap into the past")
	assert.True(t, far.After(testStart))
	s.fails("card/processRecurring", url.Values{"user": {uid}, "price": {"1"}, "currency": {"EUR"}}, paygate.CodeRecurringExpired)
}
