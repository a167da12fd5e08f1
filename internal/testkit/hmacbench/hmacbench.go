// Package hmacbench is the baseline of the signing benchmarks: HMAC-SHA256
// of one message as hex, the least any signer or verifier has to do. The
// client's and package callback's benchmarks share it; only tests import
// it.
package hmacbench

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// Baseline measures HMAC-SHA256 of msg under key as hex, with the keyed
// state made once and reused and nothing allocated: the strictest
// baseline. want is the expected hex.
func Baseline(b *testing.B, key, msg, want string) {
	m := hmac.New(sha256.New, []byte(key))
	data := []byte(msg)
	var sum [sha256.Size]byte
	var out [2 * sha256.Size]byte
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m.Reset()
		m.Write(data)
		hex.Encode(out[:], m.Sum(sum[:0]))
		if string(out[:]) != want {
			b.Fatal("wrong signature")
		}
	}
}
