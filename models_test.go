package paygate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCallbackStatuses_AreTheKnownOnes(t *testing.T) {
	t.Parallel()
	all := CallbackStatuses()
	assert.Len(t, all, 14)
	for _, s := range all {
		assert.True(t, s.Known(), s)
	}
	all[0] = "changed"
	assert.Equal(t, CallbackCompleted, CallbackStatuses()[0], "each call returns a new slice")
	assert.False(t, CallbackStatus("refunded").Known())
}
