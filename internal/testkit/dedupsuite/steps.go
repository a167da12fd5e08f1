package dedupsuite

import (
	"context"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// The steps below are for the tests of one store, beside the shared
// behaviour above: a store's own tests claim and record callbacks too.

// Key is the key of transaction id's completed callback, with a digest of
// its own.
func Key(id callback.ID) callback.Key {
	return callback.Key{ID: id, Status: callback.Completed, Transaction: id, Digest: [32]byte{byte(id)}}
}

// RequireClaim claims k on s and fails the test unless s answers want.
func RequireClaim(t testing.TB, s callback.Store, k callback.Key, want callback.Claim) {
	t.Helper()
	if c, err := s.Claim(context.Background(), k); err != nil || c != want {
		t.Fatalf("Claim(%s) = %v, %v; want %v", k.ID, c, err, want)
	}
}

// Record claims k on s, requiring it acquired, and completes it, as a
// replica does with a callback it processed.
func Record(t testing.TB, s callback.Store, k callback.Key) {
	t.Helper()
	RequireClaim(t, s, k, callback.Acquired)
	if err := s.Complete(context.Background(), k); err != nil {
		t.Fatalf("Complete(%s) = %v", k.ID, err)
	}
}

// newSigner builds extended callbacks signed with secret: the builder
// paygatetest.CallbackSigner uses, without importing the client.
func newSigner(secret string) *callbackform.Signer[callback.Status] {
	return callbackform.NewSigner[callback.Status]("paygatetest.CallbackSigner", secret, false)
}
