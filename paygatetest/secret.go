package paygatetest

import "strconv"

// Secret is a project's private key as the sandbox holds it; make one with
// NewSecret. Every way of printing it (String, %v, %+v, %#v, %s, %q, %x,
// slog, JSON) shows "[redacted]", and from an unexported field of a
// merchant's struct, which fmt and slog walk by reflection without calling
// any method, only an address: the key is kept behind a pointer to a
// string, which they never follow, as the root package's card types and
// Client keep theirs. The zero value means no key.
type Secret struct{ p *string }

// redacted is what a Secret prints as.
const redacted = "[redacted]"

// NewSecret returns the private key key; "" gives the zero value, no key.
func NewSecret(key string) Secret {
	if key == "" {
		return Secret{}
	}
	return Secret{&key}
}

// Reveal returns the key itself, "" for none: for signing and comparing,
// never for printing.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether no key is given.
func (s Secret) IsZero() bool { return s.p == nil }

// String returns "[redacted]", or "" when no key is given, so that a
// missing key stays told apart.
func (s Secret) String() string {
	if s.p == nil {
		return ""
	}
	return redacted
}

// GoString is String as Go syntax, so that %#v stays redacted.
func (s Secret) GoString() string { return "paygatetest.Secret(" + strconv.Quote(s.String()) + ")" }

// MarshalText returns String, so that encoding/json, slog's handlers and
// other encoders never write the key.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
