package signing

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKey is a private key for these tests.
const testKey = "sk_test_5b1e07d6"

// sum is the signature of params under testKey, by SumValues.
func sum(params url.Values) string {
	var sig [Len]byte
	New(testKey).SumValues(&sig, params)
	return string(sig[:])
}

// A state goes back to the pool after each signature: it must keep
// nothing of the request (card numbers among it) reachable.
func TestSignState_ForgetsTheValuesItSigned(t *testing.T) {
	const number, code = "4242424242424242", "8317"
	s := New(testKey)
	st := s.Get()
	var sig [Len]byte
	st.HMACHex(&sig, st.Canonical([]string{number, code}))
	buf := st.buf[:cap(st.buf)]
	s.Put(st)
	require.Zero(t, st.used)
	assert.NotContains(t, string(buf), "4242", "the canonical string is cleared")
	assert.Equal(t, strings.Repeat("\x00", len(code+"|"+number)), string(buf[:len(code+"|"+number)]))
	assert.Equal(t, sum(url.Values{"n": {number}, "c": {code}}), string(sig[:]))
}
