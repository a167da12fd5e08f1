package signing

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// inOrder returns values in the order SortedOrder gives.
func inOrder(values []string, order []uint64) []string {
	var out []string
	for _, i := range order {
		out = append(out, values[i])
	}
	return out
}

// checkSortedOrder requires SortedOrder to order values exactly as
// sort.Strings does, and to use every value once.
func checkSortedOrder(t *testing.T, values []string) {
	t.Helper()
	want := append([]string(nil), values...)
	sort.Strings(want)
	order := SortedOrder(values, nil)
	require.Equal(t, want, inOrder(values, order), "input %q", values)
	seen := make([]bool, len(values))
	for _, i := range order {
		require.False(t, seen[i], "index %d used twice", i)
		seen[i] = true
	}
}

func TestSortedOrder_AsSortStrings(t *testing.T) {
	for name, values := range map[string][]string{
		"none":                       nil,
		"one":                        {"x"},
		"empty values":               {"", "a", "", ""},
		"duplicates":                 {"10.00", "10.00", "1", "10.00", "1"},
		"uppercase before lowercase": {"b", "B", "a", "A"},
		"ten before seven":           {"7", "10", "100", "9"},
		"zero bytes after a prefix":  {"a\x00", "a", "a\x00\x00", "", "\x00"},
		"shared seven-byte prefix":   {"9007199254740993", "9007199254740992", "9007199", "90071992", "9007199\x00"},
		"bytes above 0x7f":           {"Ёлкино", "\xff", "\x80", "z", "Иван", "\x7f"},
		"pipes":                      {"a|b", "a", "a||", "|"},
	} {
		t.Run(name, func(t *testing.T) { checkSortedOrder(t, values) })
	}
}

func TestSortedOrder_RandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0, '0', '1', '9', 'A', 'a', '|', 0x7f, 0x80, 0xd0, 0xff}
	for range 3000 {
		// Up to past smallSortMax, so that both paths run; short values
		// from a small alphabet, so that prefixes and whole values repeat.
		values := make([]string, r.IntN(smallSortMax+20))
		for i := range values {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			values[i] = b.String()
		}
		checkSortedOrder(t, values)
	}
}

// FuzzSortedOrder compares SortedOrder with sort.Strings on any values: a
// NUL-separated list, so that the fuzzer reaches empty values, shared
// prefixes and any byte.
func FuzzSortedOrder(f *testing.F) {
	f.Add("10.00\x0010.0000\x00\x00EUR\x00eu-west\x009007199254740993")
	f.Add("a\x00b\x00B\x00\xff\x00\x80")
	f.Fuzz(func(t *testing.T, list string) {
		checkSortedOrder(t, strings.Split(list, "\x00"))
	})
}

// The 0-1 principle: a comparator network that sorts every input of zeros
// and ones sorts every input. Each network must sort its first n keys and
// leave the others alone.
func TestSortNetworks_SortEveryZeroOneInput(t *testing.T) {
	for n := 2; n <= 16; n++ {
		for bits := range 1 << n {
			var k [16]uint64
			ones := 0
			for i := range n {
				k[i] = uint64(bits >> i & 1)
				ones += int(k[i])
			}
			for i := n; i < len(k); i++ {
				k[i] = uint64(i) + 2 // neither 0 nor 1: a move would show
			}
			sortNetwork(&k, n)
			for i := range k {
				want := uint64(i) + 2
				if i < n {
					want = 0
					if i >= n-ones {
						want = 1
					}
				}
				if k[i] != want {
					t.Fatalf("n=%d: input %0*b sorted to %v", n, n, bits, k)
				}
			}
		}
	}
}

// Beyond smallSortMax, and beyond the 256 indexes a key's low byte holds,
// the order is still exact.
func TestSortedOrder_ManyValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := make([]string, 600)
	for i := range values {
		values[i] = fmt.Sprint(r.IntN(1000))
	}
	checkSortedOrder(t, values)
}
