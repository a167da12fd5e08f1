package callback

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/paygate/paygate-go/internal/signing"
)

// formField is one field of a callback form, unescaped.
type formField struct{ name, value string }

// callbackFields are the fields of a callback in the order they were
// received, a field sent twice appearing twice. A callback carries about
// twenty fields: a slice holds them with one allocation where url.Values
// needs a map and a slice per field, and a lookup by name is a short scan.
type callbackFields []formField

// Get returns the first value of the named field, or "" when it was not
// sent, as url.Values.Get does.
func (f callbackFields) Get(name string) string {
	for _, x := range f {
		if x.name == name {
			return x.value
		}
	}
	return ""
}

// Has reports whether the named field was sent, empty or not.
func (f callbackFields) Has(name string) bool {
	for _, x := range f {
		if x.name == name {
			return true
		}
	}
	return false
}

// values returns the fields as new url.Values.
func (f callbackFields) values() url.Values {
	out := make(url.Values, len(f))
	for _, x := range f {
		out[x.name] = append(out[x.name], x.value)
	}
	return out
}

// fieldsOf returns the fields of v: each name's values in their order, the
// names in no particular order.
func fieldsOf(v url.Values) callbackFields {
	n := 0
	for _, vs := range v {
		n += len(vs)
	}
	f := make(callbackFields, 0, n)
	for k, vs := range v {
		for _, x := range vs {
			f = append(f, formField{k, x})
		}
	}
	return f
}

// appendSignedFields appends to dst the values the signature covers: every
// field but the signature, empty ones included.
func appendSignedFields(dst []string, f callbackFields) []string {
	for _, x := range f {
		if x.name != signing.Param {
			dst = append(dst, x.value)
		}
	}
	return dst
}

// digest is the SHA-256 of the canonical string of the fields: what the
// signature covers, without the key.
func (f callbackFields) digest() [32]byte {
	var arr [signing.StackValues]string
	values := appendSignedFields(arr[:0], f)
	var buf []byte
	for i, k := range signing.SortedOrder(values, nil) {
		if i > 0 {
			buf = append(buf, '|')
		}
		buf = append(buf, values[k]...)
	}
	return sha256.Sum256(buf)
}

// errFormSyntax reports a body that is not a URL-encoded form.
var errFormSyntax = errors.New("not a URL-encoded form")

// maxFormFields is url.ParseQuery's default limit on the number of fields
// ('&' separators plus one).
const maxFormFields = 10000

// parseCallbackForm parses a URL-encoded body into its fields, and accepts
// and rejects the same bodies as url.ParseQuery. It reads the body once,
// byte by byte through formBytes (a callback's fields are short, and a
// call to strings.IndexByte per separator cost more than the scan); only a
// field holding an escape ('%' or '+') is unescaped, the others are slices
// of body.
func parseCallbackForm(body string) (callbackFields, error) {
	n := strings.Count(body, "&") + 1
	if n > maxFormFields {
		return nil, errFormSyntax
	}
	fields := make(callbackFields, 0, n)
	start, eq, escaped := 0, -1, false
	for i := 0; i < len(body); i++ {
		switch formBytes[body[i]] {
		case formPlain:
		case formEquals:
			if eq < 0 {
				eq = i
			}
		case formEscape:
			escaped = true
		case formSemicolon:
			return nil, errFormSyntax // url.ParseQuery rejects ';' anywhere
		case formAmpersand:
			var err error
			if fields, err = appendField(fields, body, start, eq, i, escaped); err != nil {
				return nil, err
			}
			start, eq, escaped = i+1, -1, false
		}
	}
	return appendField(fields, body, start, eq, len(body), escaped)
}

// appendField appends the field body[start:end], whose first '=' is at eq
// (or -1), unescaping it when it holds an escape. An empty field is
// skipped, as url.ParseQuery skips it.
func appendField(fields callbackFields, body string, start, eq, end int, escaped bool) (callbackFields, error) {
	if start == end {
		return fields, nil
	}
	k, v := body[start:end], ""
	if eq >= 0 {
		k, v = body[start:eq], body[eq+1:end]
	}
	if escaped {
		var kerr, verr error
		k, kerr = url.QueryUnescape(k)
		v, verr = url.QueryUnescape(v)
		if kerr != nil || verr != nil {
			return nil, errFormSyntax
		}
	}
	return append(fields, formField{k, v}), nil
}

// The classes of bytes parseCallbackForm tells apart.
const (
	formPlain = iota
	formEquals
	formEscape
	formSemicolon
	formAmpersand
)

// formBytes classes every byte for parseCallbackForm.
var formBytes = [256]uint8{'=': formEquals, '%': formEscape, '+': formEscape, ';': formSemicolon, '&': formAmpersand}

// bodyBufs are the buffers callback bodies are read into, so that reading
// one allocates only the string it becomes.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxPooledBody is the largest buffer put back in bodyBufs: a rare large
// callback should not keep 64 KiB per pooled buffer alive.
const maxPooledBody = 16 << 10

// maxDirectBody is the largest declared length readCallbackBody reads
// directly into the body's string: a gateway's callback is well below it,
// and a request that declares more than it sends cannot make the endpoint
// hold more.
const maxDirectBody = 4 << 10

// readCallbackBody reads the body through the callback size limit.
func readCallbackBody(r *http.Request) (string, error) {
	if r.ContentLength > MaxBytes {
		return "", ErrTooLarge
	}
	if r.Body == nil {
		return "", nil
	}
	var read []byte
	if r.ContentLength > 0 && r.ContentLength <= maxDirectBody {
		// Read into the bytes the string is made of, one more than
		// declared to see the end: nothing to copy, and no buffer of
		// customer data to clear.
		buf := make([]byte, r.ContentLength+1)
		n, err := io.ReadFull(r.Body, buf)
		switch err {
		case io.ErrUnexpectedEOF, io.EOF: // the whole body, or less than declared
			if n == 0 {
				return "", nil
			}
			return unsafe.String(&buf[0], n), nil
		case nil: // more than declared: read on below
			read = buf
		default:
			return "", bodyError(err)
		}
	}
	bp := bodyBufs.Get().(*[]byte)
	buf := append((*bp)[:0], read...)
	clear(read)
	defer func() {
		if cap(buf) <= maxPooledBody {
			clear(buf) // a callback carries customer data: keep none of it
			*bp = buf[:0]
			bodyBufs.Put(bp)
		}
	}()
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		n, err := r.Body.Read(buf[len(buf):min(cap(buf), MaxBytes+1)])
		buf = buf[:len(buf)+n]
		switch {
		case len(buf) > MaxBytes:
			return "", ErrTooLarge
		case err == io.EOF:
			return string(buf), nil
		case err != nil:
			return "", bodyError(err)
		}
	}
}

// bodyError is the error for a failed read of a callback body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError // a tighter limit set by the merchant's middleware
	if errors.As(err, &mbe) {
		return ErrTooLarge
	}
	return fmt.Errorf("%w: reading the body: %v", ErrMalformed, err)
}
