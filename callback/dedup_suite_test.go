package callback_test

import (
	"testing"
	"time"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
)

// TestMemoryDedupStore_SwappedCallbackIsNotProcessedAgain runs the suite's
// callback with swapped fields on the default store, shared by the handlers
// of one process.
func TestMemoryDedupStore_SwappedCallbackIsNotProcessedAgain(t *testing.T) {
	shared := callback.NewMemoryStore(0)
	dedupsuite.Swapped(t, func(testing.TB, time.Duration) callback.Store { return shared })
}

// TestMemoryDedupStore_Ordering runs the ordering every store keeps on the
// default store, shared by the handlers of one process.
func TestMemoryDedupStore_Ordering(t *testing.T) {
	shared := callback.NewMemoryStore(0)
	dedupsuite.Ordering(t, func(testing.TB, time.Duration) callback.Store { return shared })
}
