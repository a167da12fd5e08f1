package callback

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/wire"
)

// Verifier checks and parses the gateway's callbacks. It accepts a
// callback signed with any of its private keys, so that a key can be
// rotated without losing callbacks: list the new key and the old one until
// the gateway signs with the new key only. It is safe for concurrent use
// and never prints its keys.
type Verifier struct {
	signers []*signing.Signer // one per key, each reusing its HMAC state
}

// NewVerifier returns a verifier accepting callbacks signed with
// any of privateKeys (more than one during a key rotation; a slice, as
// NewHandler takes them). At least one key is required and none may
// be empty.
func NewVerifier(privateKeys []string) (*Verifier, error) {
	if len(privateKeys) == 0 {
		return nil, &wire.ValidationError{Field: "private key", Reason: "at least one private key is required"}
	}
	for _, k := range privateKeys {
		if k == "" {
			return nil, &wire.ValidationError{Field: "private key", Reason: "must not be empty"}
		}
	}
	v := &Verifier{}
	for _, k := range privateKeys {
		v.signers = append(v.signers, signing.New(k))
	}
	return v, nil
}

// ParseRequest reads, verifies and decodes a callback POST. It reads at
// most MaxBytes of the body (the query string plays no part),
// verifies the signature over every field but signature (empty ones
// included) before decoding anything, and returns the callback only when
// all of that succeeded. Behind middleware that already parsed the form
// (r.ParseForm, r.FormValue), the body is consumed: then the parsed
// r.PostForm is verified instead, under the same size limit.
//
// Errors match (errors.Is) [ErrMethod] for a method other than
// POST, [ErrTooLarge], [ErrSignatureMissing] for an empty body or
// one without a signature, [ErrSignatureInvalid] for a signature made with
// none of the keys or over other values, and [ErrMalformed] for a
// body that is not a form or a signed callback that cannot be read (see
// ParseValues).
func (v *Verifier) ParseRequest(r *http.Request) (*Callback, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("%w: got %s", ErrMethod, r.Method)
	}
	body, err := readCallbackBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 && len(r.PostForm) > 0 {
		// Middleware (r.ParseForm, r.FormValue) read the body before us:
		// what it parsed is what was received.
		fields, err := postedForm(r.PostForm)
		if err != nil {
			return nil, err
		}
		return v.parseFields(fields)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("paygate: empty callback body: %w", ErrSignatureMissing)
	}
	fields, err := parseCallbackForm(body)
	if err != nil {
		// The error would quote part of the body; say only what is wrong.
		return nil, fmt.Errorf("%w: body is not a URL-encoded form", ErrMalformed)
	}
	return v.parseFields(fields)
}

// ParseValues verifies and decodes callback fields already parsed from a
// form. The signature is checked first; then a field sent more than once
// is rejected as malformed, because which of its values the gateway meant
// cannot be told from a signature over values alone. The id and the status
// must be present, and may be empty (the spec: "all parameters are present
// but may be empty"); the id and reference_id, when not empty, must be
// decimal integers; money, when not empty, must be a plain
// decimal (digits with an optional sign and fraction); sandbox must be "1",
// "0" or empty.
func (v *Verifier) ParseValues(values url.Values) (*Callback, error) {
	return v.parseFields(fieldsOf(values))
}

// parseFields verifies and decodes the fields of a callback.
func (v *Verifier) parseFields(fields callbackFields) (*Callback, error) {
	if err := v.verifyFields(fields); err != nil {
		return nil, err
	}
	return decodeCallback(fields)
}

// Verify checks the signature of callback fields against each private key
// in constant time. It returns nil, or an error matching
// [ErrSignatureMissing] or [ErrSignatureInvalid].
func (v *Verifier) Verify(values url.Values) error {
	return v.verifyFields(fieldsOf(values))
}

// verifyFields checks the first signature field against the other fields'
// values under each key. The values are sorted and joined once, whatever
// the number of keys.
func (v *Verifier) verifyFields(fields callbackFields) error {
	i := slices.IndexFunc(fields, func(f formField) bool { return f.name == signing.Param })
	if i < 0 || fields[i].value == "" {
		return ErrSignatureMissing
	}
	if len(v.signers) == 0 {
		return ErrSignatureInvalid // a Verifier not made by NewVerifier
	}
	sent := fields[i].value
	var arr [signing.StackValues]string
	values := appendSignedFields(arr[:0], fields)
	first := v.signers[0]
	st := first.Get()
	defer first.Put(st)
	msg := st.Canonical(values)
	err := st.Check(sent, msg)
	for _, s := range v.signers[1:] {
		if err == nil {
			break
		}
		other := s.Get()
		err = other.Check(sent, msg)
		s.Put(other)
	}
	return err
}

// String describes the verifier without its keys.
func (v *Verifier) String() string {
	return fmt.Sprintf("callback.Verifier{keys: %d}", len(v.signers))
}

// GoString is String, so that %#v never prints a private key.
func (v *Verifier) GoString() string { return v.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// a private key.
func (v *Verifier) Format(f fmt.State, _ rune) { io.WriteString(f, v.String()) }

// LogValue logs the verifier without its keys.
func (v *Verifier) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("keys", len(v.signers)))
}

// postedForm returns the fields of a form that middleware already parsed
// from the body, held to the same size limit as a body read here.
func postedForm(form url.Values) (callbackFields, error) {
	size := 0
	for k, vs := range form {
		for _, v := range vs {
			size += len(k) + len(v) + 2 // "k=v&", before escaping
		}
	}
	if size > MaxBytes {
		return nil, ErrTooLarge
	}
	return fieldsOf(form), nil
}
