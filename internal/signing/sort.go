package signing

import (
	"slices"
	"strings"
)

//go:generate go run ../cmd/gensortnet -out sortnet.go

// smallSortMax is the largest number of values SortedOrder orders by
// integer keys; above it, an O(n log n) sort wins over inserting the keys
// beyond the first sixteen. A request or a callback signs 10 to 25 values.
// It must stay below 256, the number of indexes a key's low byte holds.
const smallSortMax = 64

// networkInputs is how many keys the sorting networks take.
const networkInputs = 16

// SortedOrder returns the indexes of values in the order the values sort
// as byte strings, ascending, exactly as slices.Sort (and sort.Strings)
// would order them. keys is scratch space, returned grown if needed and
// holding the indexes.
//
// Signing sorts every value it signs, and with slices.Sort that sort cost
// almost as much as the HMAC itself. Here each value becomes an integer
// key (see sortKey): values differ mostly in their first bytes, so a
// comparison is one integer comparison, and only long values sharing
// their first six bytes are compared as strings. The first sixteen keys
// go through a sorting network for their number, which does not branch on
// the values; the others (a callback's last few) are inserted. The values
// stay where they are, so that callers can keep them in an array on the
// stack.
func SortedOrder(values []string, keys []uint64) []uint64 {
	keys = keys[:0]
	if len(values) > smallSortMax {
		for i := range values {
			keys = append(keys, uint64(i))
		}
		slices.SortFunc(keys, func(a, b uint64) int { return strings.Compare(values[a], values[b]) })
		return keys
	}
	keys = keyArray(keys, len(values))
	for i, v := range values[:min(len(values), networkInputs)] {
		keys[i] = sortKey(v) | uint64(i)
	}
	return sortKeyed(values, keys)
}

// keyArray returns keys grown to hold n keys, of length networkInputs: the
// array the network sorts in place, so that nothing is copied.
func keyArray(keys []uint64, n int) []uint64 {
	return slices.Grow(keys[:0], max(n, networkInputs))[:networkInputs]
}

// sortKeyed is SortedOrder once keys (from keyArray) holds the keys of
// the first networkInputs values: the key of value i is sortKey(values[i])
// with i in its low byte.
func sortKeyed(values []string, keys []uint64) []uint64 {
	head := min(len(values), networkInputs)
	sortNetwork((*[networkInputs]uint64)(keys), head)
	keys = keys[:head]
	for i := head; i < len(values); i++ {
		k := sortKey(values[i]) | uint64(i)
		j := len(keys)
		keys = append(keys, k)
		for j > 0 && keys[j-1] > k {
			keys[j] = keys[j-1]
			j--
		}
		keys[j] = k
	}
	// Equal keys are equal short values, or long values to compare.
	// Counted without a branch per key: ties are rare.
	ties := 0
	for i := 1; i < len(keys); i++ {
		ties += b2i(keys[i]>>8 == keys[i-1]>>8) & b2i(keys[i]&lengthField == longValue)
	}
	if ties > 0 {
		sortTies(values, keys)
	}
	for i := range keys {
		keys[i] &= 0xff
	}
	return keys
}

// sortTies sorts by the whole strings each run of keys that are equal but
// for their indexes: long values sharing their first six bytes, which
// SortedOrder left in index order.
func sortTies(values []string, keys []uint64) {
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>8 == keys[lo]>>8 {
			hi++
		}
		run := keys[lo:hi]
		for i := 1; i < len(run); i++ {
			k := run[i]
			j := i
			for j > 0 && values[k&0xff] < values[run[j-1]&0xff] {
				run[j] = run[j-1]
				j--
			}
			run[j] = k
		}
		lo = hi
	}
}

// lengthField is where sortKey keeps the length of a value; longValue is
// its content for seven bytes or more.
const (
	lengthField = 0xff << 8
	longValue   = 7 << 8
)

// sortKey is the sort key of s without its index: the first six bytes of
// s, big-endian, padded with zero bytes, in the upper 48 bits; then the
// length of s, or 7 for seven bytes or more, in the next 8 bits. Keys that
// differ order their strings as the strings themselves order: where the
// six-byte prefixes are equal (padding included), a shorter value of at
// most six bytes is a prefix of the other, so ordering by length is right.
// Equal keys are equal values, or two long values with the same first six
// bytes, which only the strings tell apart.
func sortKey(s string) uint64 {
	if len(s) >= 8 {
		// One load (the compiler combines the bytes); about half the
		// values of a request are this long.
		k := uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
		return k&^0xffff | longValue
	}
	switch len(s) {
	case 0:
		return 0
	case 1:
		return uint64(s[0])<<56 | 1<<8
	case 2:
		return uint64(s[0])<<56 | uint64(s[1])<<48 | 2<<8
	case 3:
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | 3<<8
	case 4:
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 | 4<<8
	case 5:
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | 5<<8
	}
	k := uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16
	if len(s) == 6 {
		return k | 6<<8
	}
	return k | longValue
}

// b2i is 1 for true and 0 for false (the compiler makes it a SETcc).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
