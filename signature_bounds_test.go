package paygate

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/signing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/formenc"
)

// A signature is exactly 64 hex characters: a valid one with anything
// after it is not valid, nor is one cut short.
func TestVerifySignature_ExactLengthOnly(t *testing.T) {
	p := url.Values{"project": {testProject}, "id": {"9007199254740993"}, "status": {"completed"}}
	sig := Sign(p, testSecret)
	for name, sent := range map[string]string{
		"one more hex digit":  sig + "0",
		"a second signature":  sig + sig,
		"a trailing space":    sig + " ",
		"a trailing newline":  sig + "\n",
		"one character short": sig[:63],
		"one character":       sig[:1],
	} {
		p.Set(SignatureParam, sent)
		assert.ErrorIs(t, VerifySignature(p, testSecret), ErrSignatureInvalid, name)
	}
	p.Set(SignatureParam, sig)
	assert.NoError(t, VerifySignature(p, testSecret))
	p[SignatureParam] = []string{"", sig}
	assert.ErrorIs(t, VerifySignature(p, testSecret), ErrSignatureMissing, "the first signature sent is the one checked")
}

// The pipeline's signer allocates nothing: the values, their order and
// the canonical string live on the stack or in the pooled state, and the
// digits are written where the caller says.
func TestSumPairs_AllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a build without -race")
	}
	v := typicalCharge(t)
	pairs := v.pairs()
	s := signing.New(v.key)
	var sig [signing.Len]byte
	s.SumPairs(&sig, pairs)
	require.Equal(t, v.signature, string(sig[:]))
	allocs := testing.AllocsPerRun(100, func() {
		s.SumPairs(&sig, pairs)
		if string(sig[:]) != v.signature {
			t.Fatal("wrong signature")
		}
	})
	assert.Zero(t, allocs)
}

// A state keeps the buffers it grew: a request with more values than the
// stack array holds allocates its values array, and no longer grows the
// pooled order and canonical string each time.
func TestSumPairs_KeepsTheBuffersItGrew(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a build without -race")
	}
	var pairs formenc.Pairs
	for i := range 3 * signing.StackValues {
		pairs = append(pairs, formenc.Pair{Key: fmt.Sprint("k", i), Value: strings.Repeat("v", 20) + fmt.Sprint(i)})
	}
	s := signing.New(testSecret)
	var want, sig [signing.Len]byte
	s.SumPairs(&want, pairs)
	allocs := testing.AllocsPerRun(100, func() {
		s.SumPairs(&sig, pairs)
		if sig != want {
			t.Fatal("signature changed")
		}
	})
	assert.LessOrEqual(t, allocs, 1.0)
}
