package paygate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/url"
	"slices"
	"sync"
)

// SignatureParam is the name of the parameter that carries the signature.
const SignatureParam = "signature"

var (
	// ErrSignatureMissing reports a request or callback without a signature:
	// the gateway's error 40101, and what VerifySignature returns.
	ErrSignatureMissing = codeError(CodeSignatureMissing)
	// ErrSignatureInvalid reports a signature that does not match the values
	// and the private key: the gateway's error 40301, and what
	// VerifySignature returns.
	ErrSignatureInvalid = codeError(CodeSignatureInvalid)
)

// Sign returns the signature of params under privateKey: the values of every
// parameter except "signature" (keys play no part, empty values take part as
// empty strings), sorted as byte strings, joined with "|", HMAC-SHA256 with
// the private key, as 64 lowercase hex characters.
//
// Because only values are signed, a signature cannot show that values were
// not moved between fields; see [Client.ConfirmCallback] for how to settle
// that for a callback before fulfilling an order.
func Sign(params url.Values, privateKey string) string {
	n := 0
	for k, vs := range params {
		if k != SignatureParam {
			n += len(vs)
		}
	}
	values := make([]string, 0, n)
	for k, vs := range params {
		if k != SignatureParam {
			values = append(values, vs...)
		}
	}
	return newSigner(privateKey).sign(values)
}

// VerifySignature checks the "signature" parameter of params against the
// other values and privateKey, in constant time. It returns nil, or an error
// matching [ErrSignatureMissing] or [ErrSignatureInvalid].
func VerifySignature(params url.Values, privateKey string) error {
	got := params.Get(SignatureParam)
	if got == "" {
		return ErrSignatureMissing
	}
	if !hmac.Equal([]byte(got), []byte(Sign(params, privateKey))) {
		return ErrSignatureInvalid
	}
	return nil
}

// signer computes signatures under one private key, reusing HMAC states and
// buffers across calls so that signing a request allocates little.
type signer struct {
	key  []byte
	pool sync.Pool // of *signState
}

type signState struct {
	mac hash.Hash
	buf []byte
}

func newSigner(privateKey string) *signer {
	s := &signer{key: []byte(privateKey)}
	s.pool.New = func() any { return &signState{mac: hmac.New(sha256.New, s.key)} }
	return s
}

// sign sorts values in place and returns the hex HMAC of their canonical
// string.
func (s *signer) sign(values []string) string {
	slices.Sort(values)
	st := s.pool.Get().(*signState)
	st.buf = appendCanonical(st.buf[:0], values)
	st.mac.Reset()
	st.mac.Write(st.buf)
	var sum [sha256.Size]byte
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], st.mac.Sum(sum[:0]))
	s.pool.Put(st)
	return string(out[:])
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
