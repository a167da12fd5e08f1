package signing

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/formenc"

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

// SumPairs makes its sort keys as it copies the values, one path for up to
// StackValues values and another beyond: both sign what SumValues signs,
// whatever the number of values and however their prefixes are shared.
func TestSumPairs_AsSumValues(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{0, '0', '1', '|', 'a', 0xff}
	s := New(testKey)
	for n := range 3 * StackValues {
		for range 20 {
			var pairs formenc.Pairs
			params := url.Values{}
			for i := range n {
				b := []byte("9007199254")[:r.IntN(11)] // long values sharing prefixes
				for range r.IntN(4) {
					b = append(b, alphabet[r.IntN(len(alphabet))])
				}
				k := fmt.Sprint("k", i)
				pairs = append(pairs, formenc.Pair{Key: k, Value: string(b)})
				params.Add(k, string(b))
			}
			var sig [Len]byte
			s.SumPairs(&sig, pairs)
			require.Equal(t, sum(params), string(sig[:]), "values %q", params)
		}
	}
}

// encodeHex writes what hex.Encode writes.
func TestEncodeHex_AsHexEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		var raw [sizeRaw]byte
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		var got [Len]byte
		encodeHex(&got, &raw)
		require.Equal(t, hex.EncodeToString(raw[:]), string(got[:]))
	}
}

// A masked canonical string orders the values as they are signed, by their
// real bytes, and shows a masked field's value as as many stars.
func TestCanonicalStringMasked_OrdersByTheRealValues(t *testing.T) {
	params := url.Values{"project": {"pk"}, "cvc": {"987"}, "price": {"5.00"}, "holder": {"JANE"}, Param: {"ignored"}}
	none := func(string) bool { return false }
	assert.Equal(t, CanonicalString(params), CanonicalStringMasked(params, none))
	assert.Equal(t, "5.00|***|JANE|pk", CanonicalStringMasked(params, func(name string) bool { return name == "cvc" }))
}
