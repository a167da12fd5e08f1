package paygate_test

import (
	"testing"
	"time"

	paygate "github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/dedupsuite"
)

// TestMemoryDedupStore_Ordering runs the ordering every store keeps on the
// default store, shared by the handlers of one process.
func TestMemoryDedupStore_Ordering(t *testing.T) {
	shared := paygate.NewMemoryDedupStore(0)
	dedupsuite.Ordering(t, func(testing.TB, time.Duration) paygate.CallbackDedupStore { return shared })
}
