package paygatetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// json reads a JSON object body into p as the form fields a PHP client
// would send for it: nested objects and arrays become bracket keys
// (card[number], items[0]), numbers keep their literal text (a 19-digit id
// never passes through float64), true is "1", false and null are "".
// Strings are decoded as encoding/json decodes them. An empty body has no
// fields.
//
// It reads byte by byte and refuses at the first byte past a bound: a name
// that would make a key longer than maxKeyLength, a value longer than
// maxParamLength, nesting deeper than maxJSONDepth, more than maxParams
// values. It keeps one key, the one of the value being read, and makes
// strings only of the values it keeps, so that its work is linear in the
// body and its memory bounded by what it keeps, whatever the body holds.
func (p *paramReader) json(in *bufio.Reader) error {
	j := jsonReader{in: in, p: p, key: make([]byte, 0, maxKeyLength)}
	c, err := j.next()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return j.unreadable(err)
	}
	if c != '{' {
		return errors.New("the JSON body is not an object")
	}
	if err := j.object(); err != nil {
		return err
	}
	if _, err := j.next(); !errors.Is(err, io.EOF) {
		if err != nil {
			return j.unreadable(err)
		}
		return errors.New("the JSON body has data after the object")
	}
	return nil
}

// jsonReader is the state of one read of a JSON body.
type jsonReader struct {
	in    *bufio.Reader
	p     *paramReader
	key   []byte // the bracket key of the value being read
	text  []byte // the text of the scalar being read
	depth int    // objects and arrays open
}

var errUnreadableJSON = errors.New("the JSON body cannot be read")

// unreadable answers a failed read: the body's length when it passed
// maxRequestBody, otherwise that it is no JSON.
func (j *jsonReader) unreadable(err error) error {
	return readFailure(err, errUnreadableJSON.Error())
}

// next returns the next byte that is not white space.
func (j *jsonReader) next() (byte, error) {
	for {
		c, err := j.in.ReadByte()
		if err != nil || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c, err
		}
	}
}

// expect reads the next byte that is not white space and requires it to be
// want.
func (j *jsonReader) expect(want byte) error {
	c, err := j.next()
	if err != nil {
		return j.unreadable(err)
	}
	if c != want {
		return errUnreadableJSON
	}
	return nil
}

// enter opens an object or array, refusing one nested past maxJSONDepth.
func (j *jsonReader) enter() error {
	if j.depth == maxJSONDepth {
		return fmt.Errorf("the JSON body is nested deeper than %d levels", maxJSONDepth)
	}
	j.depth++
	return nil
}

// object reads the members of an object whose '{' was read.
func (j *jsonReader) object() error { return j.container('}', j.member) }

// array reads the elements of an array whose '[' was read.
func (j *jsonReader) array() error { return j.container(']', j.element) }

// container reads the members of an object or the elements of an array,
// whose opening byte was read, up to closing; read reads the i-th, whose
// first byte c was read, under the key of the container.
func (j *jsonReader) container(closing byte, read func(i int, c byte) error) error {
	if err := j.enter(); err != nil {
		return err
	}
	c, err := j.next()
	if err == nil && c == closing {
		return j.close(c, err, closing)
	}
	for i := 0; ; i++ {
		if err != nil {
			return j.unreadable(err)
		}
		mark := len(j.key)
		if err := read(i, c); err != nil {
			return err
		}
		j.key = j.key[:mark]
		if c, err = j.next(); err != nil || c != ',' {
			return j.close(c, err, closing)
		}
		c, err = j.next()
	}
}

// member reads a member of an object: its name, whose '"' is c, and its
// value.
func (j *jsonReader) member(_ int, c byte) error {
	if c != '"' {
		return errUnreadableJSON
	}
	if err := j.name(); err != nil {
		return err
	}
	if err := j.expect(':'); err != nil {
		return err
	}
	c, err := j.next()
	if err != nil {
		return j.unreadable(err)
	}
	return j.value(c)
}

// element reads the i-th element of an array, whose first byte c was read,
// under its index in brackets.
func (j *jsonReader) element(i int, c byte) error {
	j.key = append(j.key, '[')
	j.key = strconv.AppendInt(j.key, int64(i), 10)
	if j.key = append(j.key, ']'); len(j.key) > maxKeyLength {
		return errKeyTooLong
	}
	return j.value(c)
}

// close requires the byte that ended an object's or array's members to be
// its closing byte.
func (j *jsonReader) close(c byte, err error, want byte) error {
	if err != nil {
		return j.unreadable(err)
	}
	if c != want {
		return errUnreadableJSON
	}
	j.depth--
	return nil
}

// name reads a member's name, whose '"' was read, into the key: bracketed
// under a parent's key, as a PHP client names it.
func (j *jsonReader) name() error {
	limit := maxKeyLength
	nested := len(j.key) > 0
	if nested {
		j.key = append(j.key, '[')
		limit-- // the closing bracket
	}
	var err error
	if j.key, err = j.str(j.key, limit, func() error { return errKeyTooLong }); err != nil {
		return err
	}
	if nested {
		j.key = append(j.key, ']')
	}
	return nil
}

// value reads one value, whose first byte c was read, counting it against
// maxParams, and keeps it if it is a scalar.
func (j *jsonReader) value(c byte) error {
	if err := j.p.counted(); err != nil {
		return err
	}
	var err error
	j.text = j.text[:0]
	switch {
	case c == '{':
		return j.object()
	case c == '[':
		return j.array()
	case c == '"':
		j.text, err = j.str(j.text, maxParamLength, j.tooLong)
	case c == '-' || ('0' <= c && c <= '9'):
		err = j.number(c)
	case c == 't':
		j.text, err = append(j.text, '1'), j.literal("rue")
	case c == 'f':
		err = j.literal("alse")
	case c == 'n':
		err = j.literal("ull")
	default:
		err = errUnreadableJSON
	}
	if err != nil {
		return err
	}
	key := string(j.key)
	j.p.out[key] = append(j.p.out[key], string(j.text))
	return nil
}

// tooLong answers a value of the current key longer than maxParamLength.
func (j *jsonReader) tooLong() error { return errValueTooLong(string(j.key)) }

// literal reads the rest of true, false or null.
func (j *jsonReader) literal(rest string) error {
	for i := 0; i < len(rest); i++ {
		c, err := j.in.ReadByte()
		if err != nil {
			return j.unreadable(err)
		}
		if c != rest[i] {
			return errUnreadableJSON
		}
	}
	return nil
}

// number reads a number whose first byte c was read into j.text, as
// written, and leaves the byte after it unread.
func (j *jsonReader) number(c byte) error {
	var err error
	if c == '-' {
		j.text = append(j.text, c)
		if c, err = j.readByte(); err != nil {
			return err
		}
	}
	// The integer part: 0, or digits not starting with 0.
	switch {
	case c == '0':
		j.text = append(j.text, c)
		c, err = j.readByte()
	case '1' <= c && c <= '9':
		j.text = append(j.text, c)
		c, err = j.digits(0)
	default:
		return errUnreadableJSON
	}
	if err == nil && c == '.' {
		j.text = append(j.text, c)
		c, err = j.digits(1)
	}
	if err == nil && (c == 'e' || c == 'E') {
		j.text = append(j.text, c)
		if c, err = j.readByte(); err == nil && (c == '+' || c == '-') {
			j.text = append(j.text, c)
		} else if err == nil {
			err = j.in.UnreadByte()
		}
		if err == nil {
			_, err = j.digits(1)
		}
	}
	if err != nil {
		return err
	}
	if len(j.text) > maxParamLength {
		return j.tooLong()
	}
	return j.in.UnreadByte()
}

// digits reads at least min digits into j.text and returns the byte after
// them.
func (j *jsonReader) digits(min int) (byte, error) {
	for n := 0; ; n++ {
		c, err := j.readByte()
		if err != nil {
			return c, err
		}
		if c < '0' || c > '9' {
			if n < min {
				return c, errUnreadableJSON
			}
			return c, nil
		}
		if len(j.text) == maxParamLength {
			return c, j.tooLong()
		}
		j.text = append(j.text, c)
	}
}

// readByte reads the next byte inside a value, where the end of the body
// is no JSON.
func (j *jsonReader) readByte() (byte, error) {
	c, err := j.in.ReadByte()
	if err != nil {
		return 0, j.unreadable(err)
	}
	return c, nil
}

// str reads a string whose '"' was read, decoded as encoding/json decodes
// it (invalid UTF-8 and lone surrogates become U+FFFD), and appends it to
// dst. It stops with tooLong's error as soon as dst is longer than limit.
func (j *jsonReader) str(dst []byte, limit int, tooLong func() error) ([]byte, error) {
	start, ascii := len(dst), true
	for {
		c, err := j.readByte()
		switch {
		case err != nil:
			return dst, err
		case c == '"':
			if !ascii && !utf8.Valid(dst[start:]) {
				dst = replaceInvalidUTF8(dst, start)
			}
			if len(dst) > limit {
				return dst, tooLong()
			}
			return dst, nil
		case c < 0x20:
			return dst, errUnreadableJSON
		case c == '\\':
			if dst, err = j.escape(dst); err != nil {
				return dst, err
			}
		default:
			ascii = ascii && c < utf8.RuneSelf
			dst = append(dst, c)
		}
		if len(dst) > limit {
			return dst, tooLong()
		}
	}
}

// escape reads an escape sequence whose backslash was read and appends what it
// stands for to dst.
func (j *jsonReader) escape(dst []byte) ([]byte, error) {
	c, err := j.readByte()
	if err != nil {
		return dst, err
	}
	switch c {
	case '"', '\\', '/':
		return append(dst, c), nil
	case 'b':
		return append(dst, '\b'), nil
	case 'f':
		return append(dst, '\f'), nil
	case 'n':
		return append(dst, '\n'), nil
	case 'r':
		return append(dst, '\r'), nil
	case 't':
		return append(dst, '\t'), nil
	case 'u':
		var hex [4]byte
		for i := range hex {
			if hex[i], err = j.readByte(); err != nil {
				return dst, err
			}
		}
		r, ok := hex4(hex[:])
		if !ok {
			return dst, errUnreadableJSON
		}
		return utf8.AppendRune(dst, j.pairedSurrogate(r)), nil
	}
	return dst, errUnreadableJSON
}

// pairedSurrogate returns r, or for a surrogate the rune it makes with a
// \u escape of its pair that follows (which is then read), or U+FFFD
// when none follows, leaving what follows to be read.
func (j *jsonReader) pairedSurrogate(r rune) rune {
	if !utf16.IsSurrogate(r) {
		return r
	}
	next, _ := j.in.Peek(6)
	if len(next) == 6 && next[0] == '\\' && next[1] == 'u' {
		if r2, ok := hex4(next[2:]); ok {
			if pair := utf16.DecodeRune(r, r2); pair != unicode.ReplacementChar {
				_, _ = j.in.Discard(6)
				return pair
			}
		}
	}
	return unicode.ReplacementChar
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// replaceInvalidUTF8 replaces each byte of dst[start:] that is no part of
// a UTF-8 sequence with U+FFFD, as encoding/json does.
func replaceInvalidUTF8(dst []byte, start int) []byte {
	seg := append([]byte(nil), dst[start:]...)
	dst = dst[:start]
	for len(seg) > 0 {
		r, size := utf8.DecodeRune(seg)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, unicode.ReplacementChar)
		} else {
			dst = append(dst, seg[:size]...)
		}
		seg = seg[size:]
	}
	return dst
}
