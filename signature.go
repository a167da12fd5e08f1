package paygate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/url"
	"sync"

	"github.com/paygate/paygate-go/internal/formenc"
)

// SignatureParam is the name of the parameter that carries the signature.
const SignatureParam = "signature"

// Sign returns the signature of params under privateKey: the values of every
// parameter except "signature" (keys play no part, empty values take part as
// empty strings), sorted as byte strings, joined with "|", HMAC-SHA256 with
// the private key, as 64 lowercase hex characters.
//
// Because only values are signed, a signature cannot show that values were
// not moved between fields; see [Client.ConfirmCallback] for how to settle
// that for a callback before fulfilling an order.
func Sign(params url.Values, privateKey string) string {
	var sig [signatureLen]byte
	newSigner(privateKey).sumValues(&sig, params)
	return string(sig[:])
}

// VerifySignature checks the "signature" parameter of params against the
// other values and privateKey, in constant time. It returns nil, or an error
// matching [ErrSignatureMissing] or [ErrSignatureInvalid].
func VerifySignature(params url.Values, privateKey string) error {
	return newSigner(privateKey).verify(params)
}

// CanonicalString returns the string [Sign] signs for params: every value
// except the signature's, sorted as byte strings and joined with "|". It
// is what to compare, side by side, when the gateway answers 40301 or a
// callback does not verify: the private key plays no part in it.
func CanonicalString(params url.Values) string {
	var st signState // the signer's own code, outside its pool
	return string(st.canonical(appendSigned(nil, params)))
}

// signatureLen is the length of a signature: SHA-256 in hex.
const signatureLen = 2 * sha256.Size

// signer computes signatures under one private key, reusing HMAC states and
// buffers across calls so that signing a request allocates little. Clients
// and callback verifiers keep one per key. It is safe for concurrent use:
// each call takes a state of its own from the pool.
type signer struct {
	// key is a leaf: fmt, reporting a wrong verb for a struct holding a
	// client or a verifier, prints what a *signer points to.
	key  signingKey
	pool sync.Pool // of *signState
}

// signState is one signature's working space: the keyed HMAC and the
// scratch of the canonical string.
type signState struct {
	mac  hash.Hash
	keys []uint64 // the sorted order of the values (sortedOrder)
	buf  []byte   // their canonical string, in buf[:used]
	used int
	raw  [sha256.Size]byte
}

// stackValues is how many values the signing functions keep in an array on
// their stack: more than a request or a callback carries. Strings copied
// to the stack cost no write barriers, and nothing needs clearing after.
const stackValues = 32

func newSigner(privateKey string) *signer {
	s := &signer{key: signingKey{newText[keyMask](privateKey)}}
	s.pool.New = func() any {
		// Sized for a typical request, so that they do not grow step by
		// step.
		return &signState{
			mac:  hmac.New(sha256.New, []byte(s.key.get())),
			keys: make([]uint64, 0, stackValues),
			buf:  make([]byte, 0, 512),
		}
	}
	return s
}

func (s *signer) get() *signState { return s.pool.Get().(*signState) }

// put returns st to the pool once it has forgotten what it signed.
func (s *signer) put(st *signState) {
	st.forget()
	s.pool.Put(st)
}

// signPairs returns the signature of the values of pairs.
func (s *signer) signPairs(pairs formenc.Pairs) string {
	var arr [stackValues]string
	var values []string
	if len(pairs) <= len(arr) {
		values = arr[:len(pairs)]
	} else {
		values = make([]string, len(pairs))
	}
	for i := range values {
		values[i] = pairs[i].Value
	}
	st := s.get()
	var sig [signatureLen]byte
	st.hmacHex(&sig, st.canonical(values))
	s.put(st)
	return string(sig[:])
}

// verify checks the signature parameter of params against the other values.
func (s *signer) verify(params url.Values) error {
	got := params[SignatureParam]
	if len(got) == 0 || got[0] == "" {
		return ErrSignatureMissing
	}
	var arr [stackValues]string
	values := appendSigned(arr[:0], params)
	st := s.get()
	defer s.put(st)
	return st.check(got[0], st.canonical(values))
}

// sumValues writes to sig the signature of every value of params except the
// signature's.
func (s *signer) sumValues(sig *[signatureLen]byte, params url.Values) {
	var arr [stackValues]string
	values := appendSigned(arr[:0], params)
	st := s.get()
	st.hmacHex(sig, st.canonical(values))
	s.put(st)
}

// appendSigned appends to dst the values of params the signature covers:
// every value of every parameter but the signature's.
func appendSigned(dst []string, params url.Values) []string {
	for k, vs := range params {
		if k != SignatureParam {
			dst = append(dst, vs...)
		}
	}
	return dst
}

// canonical returns the canonical string of values, in st.buf: the values
// sorted as byte strings and joined with "|".
func (st *signState) canonical(values []string) []byte {
	keys := sortedOrder(values, st.keys)
	buf := st.buf[:0]
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, '|')
		}
		buf = append(buf, values[k]...)
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

// hmacHex writes to sig the lowercase hex HMAC-SHA256 of msg.
func (st *signState) hmacHex(sig *[signatureLen]byte, msg []byte) {
	st.mac.Reset()
	st.mac.Write(msg)
	hex.Encode(sig[:], st.mac.Sum(st.raw[:0]))
}

// check compares sent, a signature as received, with the signature of msg,
// in constant time. sent must not be empty.
func (st *signState) check(sent string, msg []byte) error {
	var want, got [signatureLen]byte
	if len(sent) != len(got) {
		return ErrSignatureInvalid
	}
	st.hmacHex(&want, msg)
	copy(got[:], sent) // compared as arrays, so that nothing is allocated
	if !hmac.Equal(want[:], got[:]) {
		return ErrSignatureInvalid
	}
	return nil
}

// forget clears the canonical string, so that a pooled state keeps no
// request data (card numbers among it) reachable. (The keys are indexes
// only.)
func (st *signState) forget() {
	clear(st.buf[:st.used])
	st.used = 0
}

// appendCanonical joins already sorted values with "|".
func appendCanonical(dst []byte, sorted []string) []byte {
	for i, v := range sorted {
		if i > 0 {
			dst = append(dst, '|')
		}
		dst = append(dst, v...)
	}
	return dst
}
