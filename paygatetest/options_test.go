package paygatetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One option value may configure many servers, one after another or at
// once: each gets the schedule the option names.
func TestWithCallbackRetry_AReusedOptionGivesEveryServerTheSameSchedule(t *testing.T) {
	t.Parallel()
	opt := WithCallbackRetry(4, time.Second)
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	for range 3 {
		var c config
		opt(&c)
		require.Equal(t, want, c.callbackWaits)
	}
}
