package paygate

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

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

// A state goes back to the pool after each signature: it must keep
// nothing of the request (card numbers among it) reachable.
func TestSignState_ForgetsTheValuesItSigned(t *testing.T) {
	const number, code = "4242424242424242", "8317"
	s := newSigner(testSecret)
	st := s.get()
	var sig [signatureLen]byte
	st.hmacHex(&sig, st.canonical([]string{number, code}))
	buf := st.buf[:cap(st.buf)]
	s.put(st)
	require.Zero(t, st.used)
	assert.NotContains(t, string(buf), "4242", "the canonical string is cleared")
	assert.Equal(t, strings.Repeat("\x00", len(code+"|"+number)), string(buf[:len(code+"|"+number)]))
	assert.Equal(t, Sign(url.Values{"n": {number}, "c": {code}}, testSecret), string(sig[:]))
}

// The pipeline's signer allocates the signature it returns and nothing
// else: the values, their order and the canonical string live on the
// stack or in the pooled state.
func TestSignPairs_AllocatesOnlyTheSignature(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a build without -race")
	}
	v := typicalCharge(t)
	pairs := v.pairs()
	s := newSigner(v.key)
	require.Equal(t, v.signature, s.signPairs(pairs))
	allocs := testing.AllocsPerRun(100, func() {
		if s.signPairs(pairs) != v.signature {
			t.Fatal("wrong signature")
		}
	})
	assert.LessOrEqual(t, allocs, 1.0)
}

// A state keeps the buffers it grew: a request with more values than the
// stack array holds allocates its values array and its signature, and no
// longer grows the pooled order and canonical string each time.
func TestSignPairs_KeepsTheBuffersItGrew(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a build without -race")
	}
	var pairs formenc.Pairs
	for i := range 3 * stackValues {
		pairs = append(pairs, formenc.Pair{Key: fmt.Sprint("k", i), Value: strings.Repeat("v", 20) + fmt.Sprint(i)})
	}
	s := newSigner(testSecret)
	want := s.signPairs(pairs)
	allocs := testing.AllocsPerRun(100, func() {
		if s.signPairs(pairs) != want {
			t.Fatal("signature changed")
		}
	})
	assert.LessOrEqual(t, allocs, 2.0)
}
