package callback

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCallbackStatuses_AreTheKnownOnes(t *testing.T) {
	t.Parallel()
	all := Statuses()
	assert.Len(t, all, 14)
	for _, s := range all {
		assert.True(t, s.Known(), s)
	}
	all[0] = "changed"
	assert.Equal(t, Completed, Statuses()[0], "each call returns a new slice")
	assert.False(t, Status("refunded").Known())
}
