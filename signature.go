package paygate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/url"
	"slices"
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
	var values []string
	for k, vs := range params {
		if k != SignatureParam {
			values = append(values, vs...)
		}
	}
	slices.Sort(values)
	return string(appendCanonical(nil, values))
}

// signatureLen is the length of a signature: SHA-256 in hex.
const signatureLen = 2 * sha256.Size

// signer computes signatures under one private key, reusing HMAC states and
// buffers across calls so that signing a request allocates little. Clients
// and callback verifiers keep one per key.
type signer struct {
	key  []byte
	pool sync.Pool // of *signState
}

type signState struct {
	mac    hash.Hash
	values []string // the values to sign
	buf    []byte   // their canonical string
	raw    [sha256.Size]byte
}

func newSigner(privateKey string) *signer {
	s := &signer{key: []byte(privateKey)}
	s.pool.New = func() any {
		// Sized for a typical request, so that the one-shot Sign and
		// VerifySignature do not grow them step by step.
		return &signState{mac: hmac.New(sha256.New, s.key), values: make([]string, 0, 32), buf: make([]byte, 0, 512)}
	}
	return s
}

// signPairs returns the signature of the values of pairs.
func (s *signer) signPairs(pairs formenc.Pairs) string {
	st := s.pool.Get().(*signState)
	defer s.pool.Put(st)
	for _, p := range pairs {
		st.values = append(st.values, p.Value)
	}
	var sig [signatureLen]byte
	st.sum(&sig)
	return string(sig[:])
}

// verify checks the signature parameter of params against the other values.
func (s *signer) verify(params url.Values) error {
	got := params[SignatureParam]
	if len(got) == 0 || got[0] == "" {
		return ErrSignatureMissing
	}
	var want, sent [signatureLen]byte
	if len(got[0]) != len(sent) {
		return ErrSignatureInvalid
	}
	s.sumValues(&want, params)
	copy(sent[:], got[0]) // compared as arrays, so that nothing is allocated
	if !hmac.Equal(want[:], sent[:]) {
		return ErrSignatureInvalid
	}
	return nil
}

// sumValues writes to sig the signature of every value of params except the
// signature's.
func (s *signer) sumValues(sig *[signatureLen]byte, params url.Values) {
	st := s.pool.Get().(*signState)
	defer s.pool.Put(st)
	for k, vs := range params {
		if k != SignatureParam {
			st.values = append(st.values, vs...)
		}
	}
	st.sum(sig)
}

// sum writes to sig the signature of st.values: sorted, joined with "|",
// HMAC-SHA256, hex. It then forgets the values, so that a pooled state
// keeps no request data (card numbers among it) reachable.
func (st *signState) sum(sig *[signatureLen]byte) {
	slices.Sort(st.values)
	st.buf = appendCanonical(st.buf[:0], st.values)
	st.mac.Reset()
	st.mac.Write(st.buf)
	hex.Encode(sig[:], st.mac.Sum(st.raw[:0]))
	clear(st.values)
	st.values = st.values[:0]
	clear(st.buf)
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
