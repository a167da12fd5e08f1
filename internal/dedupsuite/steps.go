package dedupsuite

import (
	"context"
	"testing"

	paygate "github.com/paygate/paygate-go"
)

// The steps below are for the tests of one store, beside the shared
// behaviour above: a store's own tests claim and record callbacks too.

// Key is the key of transaction id's completed callback, with a digest of
// its own.
func Key(id paygate.ID) paygate.DedupKey {
	return paygate.DedupKey{ID: id, Status: paygate.CallbackCompleted, Transaction: id, Digest: [32]byte{byte(id)}}
}

// RequireClaim claims k on s and fails the test unless s answers want.
func RequireClaim(t testing.TB, s paygate.CallbackDedupStore, k paygate.DedupKey, want paygate.DedupClaim) {
	t.Helper()
	if c, err := s.Claim(context.Background(), k); err != nil || c != want {
		t.Fatalf("Claim(%s) = %v, %v; want %v", k.ID, c, err, want)
	}
}

// Record claims k on s, requiring it acquired, and completes it, as a
// replica does with a callback it processed.
func Record(t testing.TB, s paygate.CallbackDedupStore, k paygate.DedupKey) {
	t.Helper()
	RequireClaim(t, s, k, paygate.DedupAcquired)
	if err := s.Complete(context.Background(), k); err != nil {
		t.Fatalf("Complete(%s) = %v", k.ID, err)
	}
}
