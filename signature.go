package paygate

import (
	"errors"
	"net/url"

	"github.com/paygate/paygate-go/internal/signing"
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
	var sig [signing.Len]byte
	signing.New(privateKey).SumValues(&sig, params)
	return string(sig[:])
}

// VerifySignature checks the "signature" parameter of params against the
// other values and privateKey, in constant time. It returns nil, or an error
// matching [ErrSignatureMissing] or [ErrSignatureInvalid].
func VerifySignature(params url.Values, privateKey string) error {
	return signatureError(signing.New(privateKey).Verify(params))
}

// CanonicalString returns the string [Sign] signs for params: every value
// except the signature's, sorted as byte strings and joined with "|". It
// is what to compare, side by side, when the gateway answers 40301 or a
// callback does not verify: the private key plays no part in it.
func CanonicalString(params url.Values) string { return signing.CanonicalString(params) }

// signatureError returns the root's sentinel for a signing error, so that
// VerifySignature keeps returning an *Error with the gateway's code.
func signatureError(err error) error {
	switch {
	case errors.Is(err, signing.ErrMissing):
		return ErrSignatureMissing
	case errors.Is(err, signing.ErrInvalid):
		return ErrSignatureInvalid
	}
	return err
}

func init() {
	// The callback package returns the signing package's errors, which
	// cannot import this one: make them match the gateway codes' sentinels.
	signing.Alias(signing.ErrMissing, ErrSignatureMissing)
	signing.Alias(signing.ErrInvalid, ErrSignatureInvalid)
}
