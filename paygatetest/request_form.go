package paygatetest

import (
	"bytes"
	"errors"
	"io"
	"net/url"
)

// form reads name=value pairs separated by '&' from in, a query string or
// a form body, as url.ParseQuery reads them ('+' is a space, a pair with a
// ';' is refused). A name or value is refused as soon as its raw text is
// longer than its bound could take encoded (three bytes a byte), so that
// no more of it is read; decoded, it is held to the bound itself.
func (p *paramReader) form(in io.ByteReader) error {
	var name, value []byte
	for {
		var stop byte
		var err error
		name, stop, err = readPart(in, name[:0], '=', 3*maxKeyLength)
		if errors.Is(err, errPartTooLong) {
			return errKeyTooLong
		}
		if err != nil {
			return readFailure(err, "the form cannot be parsed")
		}
		hasValue := stop == '='
		value = value[:0]
		if hasValue {
			if value, stop, err = readPart(in, value, '&', 3*maxParamLength); err != nil {
				return p.valueFailure(name, err)
			}
		}
		if len(name) > 0 || hasValue {
			if err := p.formPair(name, value); err != nil {
				return err
			}
		}
		if stop == 0 {
			return nil
		}
	}
}

// formPair decodes and keeps one pair.
func (p *paramReader) formPair(rawName, rawValue []byte) error {
	if bytes.IndexByte(rawName, ';') >= 0 || bytes.IndexByte(rawValue, ';') >= 0 {
		return errors.New("the form separates parameters with a semicolon")
	}
	name, err := url.QueryUnescape(string(rawName))
	if err != nil {
		return errors.New("the form cannot be parsed")
	}
	if len(name) > maxKeyLength {
		return errKeyTooLong
	}
	value, err := url.QueryUnescape(string(rawValue))
	if err != nil {
		return errors.New("the form cannot be parsed")
	}
	if len(value) > maxParamLength {
		return errValueTooLong(name)
	}
	return p.add(name, value)
}

// valueFailure answers a value that could not be read after rawName.
func (p *paramReader) valueFailure(rawName []byte, err error) error {
	if !errors.Is(err, errPartTooLong) {
		return readFailure(err, "the form cannot be parsed")
	}
	name, uerr := url.QueryUnescape(string(rawName))
	if uerr != nil || len(name) > maxKeyLength {
		return errKeyTooLong
	}
	return errValueTooLong(name)
}

// errPartTooLong stops readPart at its limit.
var errPartTooLong = errors.New("longer than its bound")

// readPart appends to dst the bytes of in up to '&', to stopAt or to the
// end, and returns them with the byte it stopped at (0 at the end). It
// stops reading at limit bytes.
func readPart(in io.ByteReader, dst []byte, stopAt byte, limit int) ([]byte, byte, error) {
	for {
		c, err := in.ReadByte()
		if errors.Is(err, io.EOF) {
			return dst, 0, nil
		}
		if err != nil {
			return dst, 0, err
		}
		if c == '&' || c == stopAt {
			return dst, c, nil
		}
		if len(dst) == limit {
			return dst, 0, errPartTooLong
		}
		dst = append(dst, c)
	}
}
