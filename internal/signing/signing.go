// Package signing computes and checks the gateway's signatures: the values
// of every field but the signature, sorted as byte strings, joined with
// "|", HMAC-SHA256 under the project's private key, in lowercase hex. The
// client signs its requests and package callback verifies callbacks with
// it, so that both share one implementation of the canonical string.
package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"net/url"
	"strings"
	"sync"

	"github.com/paygate/paygate-go/internal/formenc"
)

// Param is the name of the field that carries the signature.
const Param = "signature"

// Len is the length of a signature: SHA-256 in hex.
const Len = 2 * sha256.Size

// StackValues is how many values the signing functions keep in an array
// on their stack: more than a request or a callback carries. Strings
// copied to the stack cost no write barriers, and nothing needs clearing
// after.
const StackValues = 32

// SumPairs sorts the values that fit its stack array by their keys, which
// needs at most smallSortMax of them: this fails to compile otherwise.
const _ = uint(smallSortMax - StackValues)

// Signer computes signatures under one private key, reusing HMAC states
// and buffers across calls so that signing a request allocates little.
// Clients and callback verifiers keep one per key. It is safe for
// concurrent use: each call takes a state of its own from the pool.
type Signer struct {
	// key is held behind a pointer: fmt, reporting a wrong verb for a
	// struct holding a client or a verifier, prints what a *Signer points
	// to, and prints a pointer found there as an address.
	key  *string
	pool sync.Pool // of *State
}

// State is one signature's working space: the keyed HMAC and the scratch
// of the canonical string.
type State struct {
	mac  hash.Hash
	keys []uint64 // the sorted order of the values (SortedOrder)
	buf  []byte   // their canonical string, in buf[:used]
	used int
	raw  [sizeRaw]byte
}

// sizeRaw is the size of a digest, before hex.
const sizeRaw = sha256.Size

// New returns a signer under privateKey.
func New(privateKey string) *Signer {
	s := &Signer{key: &privateKey}
	s.pool.New = func() any {
		// Sized for a typical request, so that they do not grow step by
		// step.
		return &State{
			mac:  hmac.New(sha256.New, []byte(*s.key)),
			keys: make([]uint64, 0, StackValues),
			buf:  make([]byte, 0, 512),
		}
	}
	return s
}

// Get takes a state from the pool; Put gives it back.
func (s *Signer) Get() *State { return s.pool.Get().(*State) }

// Put returns st to the pool once it has forgotten what it signed.
func (s *Signer) Put(st *State) {
	st.forget()
	s.pool.Put(st)
}

// SumPairs writes to sig the signature of the values of pairs. Nothing is
// allocated: the caller appends the digits to the request body it is
// writing, so that no string is made for them.
func (s *Signer) SumPairs(sig *[Len]byte, pairs formenc.Pairs) {
	st := s.Get()
	var arr [StackValues]string
	var msg []byte
	if len(pairs) <= len(arr) { // at most smallSortMax: sorted by keys
		// The values are copied and their sort keys made in one pass.
		values := arr[:len(pairs)]
		keys := keyArray(st.keys, len(pairs))
		for i := range values {
			v := pairs[i].Value
			values[i] = v
			if i < networkInputs {
				keys[i] = sortKey(v) | uint64(i)
			}
		}
		msg = st.join(values, sortKeyed(values, keys))
	} else {
		values := make([]string, len(pairs))
		for i := range values {
			values[i] = pairs[i].Value
		}
		msg = st.Canonical(values)
	}
	st.HMACHex(sig, msg)
	s.Put(st)
}

// Verify checks the signature field of params against the other values. It
// returns nil, ErrMissing or ErrInvalid.
func (s *Signer) Verify(params url.Values) error {
	got := params[Param]
	if len(got) == 0 || got[0] == "" {
		return ErrMissing
	}
	var arr [StackValues]string
	values := appendSigned(arr[:0], params)
	st := s.Get()
	defer s.Put(st)
	return st.Check(got[0], st.Canonical(values))
}

// SumValues writes to sig the signature of every value of params except
// the signature's.
func (s *Signer) SumValues(sig *[Len]byte, params url.Values) {
	var arr [StackValues]string
	values := appendSigned(arr[:0], params)
	st := s.Get()
	st.HMACHex(sig, st.Canonical(values))
	s.Put(st)
}

// CanonicalString returns the canonical string of params, for people to
// read: the signer's own code, outside its pool.
func CanonicalString(params url.Values) string {
	var st State
	return string(st.Canonical(appendSigned(nil, params)))
}

// CanonicalStringMasked is CanonicalString with the value of every field
// masked names written as as many "*": ordered by the real values, as they
// are signed, so that it shows where each value stands without showing the
// value.
func CanonicalStringMasked(params url.Values, masked func(name string) bool) string {
	var names, values []string
	for k, vs := range params {
		if k == Param {
			continue
		}
		for _, v := range vs {
			names, values = append(names, k), append(values, v)
		}
	}
	var b strings.Builder
	for i, k := range SortedOrder(values, nil) {
		if i > 0 {
			b.WriteByte('|')
		}
		if masked(names[k]) {
			b.WriteString(strings.Repeat("*", len(values[k])))
		} else {
			b.WriteString(values[k])
		}
	}
	return b.String()
}

// appendSigned appends to dst the values of params the signature covers:
// every value of every field but the signature's.
func appendSigned(dst []string, params url.Values) []string {
	for k, vs := range params {
		if k != Param {
			dst = append(dst, vs...)
		}
	}
	return dst
}

// Canonical returns the canonical string of values, in st's buffer: the
// values sorted as byte strings and joined with "|". It is valid until st
// goes back to the pool.
func (st *State) Canonical(values []string) []byte {
	return st.join(values, SortedOrder(values, st.keys))
}

// join joins values in the order of keys (from SortedOrder) into st's
// buffer, and keeps keys for the next signature if they grew.
func (st *State) join(values []string, keys []uint64) []byte {
	buf := st.buf[:0]
	for _, k := range keys {
		buf = append(buf, values[k]...)
		buf = append(buf, '|')
	}
	if len(buf) > 0 {
		buf = buf[:len(buf)-1] // the last separator
	}
	// Stored back only when grown: storing a pointer into the pooled
	// state costs a write barrier whenever the GC runs.
	if cap(keys) != cap(st.keys) {
		st.keys = keys
	}
	if cap(buf) != cap(st.buf) {
		st.buf = buf
	}
	st.used = len(buf)
	return buf
}

// HMACHex writes to sig the lowercase hex HMAC-SHA256 of msg.
func (st *State) HMACHex(sig *[Len]byte, msg []byte) {
	st.mac.Reset()
	st.mac.Write(msg)
	st.mac.Sum(st.raw[:0])
	encodeHex(sig, &st.raw)
}

// Check compares sent, a signature as received, with the signature of msg,
// in constant time. sent must not be empty.
func (st *State) Check(sent string, msg []byte) error {
	var want, got [Len]byte
	if len(sent) != len(got) {
		return ErrInvalid
	}
	st.HMACHex(&want, msg)
	copy(got[:], sent) // compared as arrays, so that nothing is allocated
	if !hmac.Equal(want[:], got[:]) {
		return ErrInvalid
	}
	return nil
}

// forget clears the canonical string, so that a pooled state keeps no
// request data (card numbers among it) reachable. (The keys are indexes
// only.)
func (st *State) forget() {
	clear(st.buf[:st.used])
	st.used = 0
}
