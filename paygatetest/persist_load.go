package paygatetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/shopspring/decimal"
)

// stateFields are the fields of a state file in the order the sandbox
// writes them (savedState's), which is the order they are read in: each
// record is restored as soon as it is decoded, so that what it names (a
// counter, a user, a transaction) must come before it. A field out of
// this order is refused; an unknown one is skipped.
var stateFields = map[string]int{
	"version": 1, "saved_at": 2, "clock": 3, "next_transaction": 4, "next_user": 5, "next_token": 6,
	"last_delivery": 7, "users": 8, "tokens": 9, "transactions": 10, "subscriptions": 11, "balances": 12,
	"deliveries": 13,
}

// stateReadBuffer is how much of the state file is read at a time.
const stateReadBuffer = 256 << 10

// errNotStateFile is the error of a file that does not begin as a state
// file does.
var errNotStateFile = errors.New("not a sandbox state file (corrupt or truncated): remove it to start empty")

// loadStateFile reads the state file of p into s, when it exists:
// restored reports whether it did. The file is decoded as it is read,
// record by record, each made part of the state at once: neither the
// file's bytes nor a decoded copy of the whole state are ever held, so
// that a start costs about the time and memory of the state it makes.
func (s *Server) loadStateFile(p *persister) (restored bool, err error) {
	f, err := os.Open(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w %s: %v", ErrStateFile, p.name, err)
	}
	defer f.Close()
	r := s.newRestorer()
	if err := r.read(json.NewDecoder(bufio.NewReaderSize(f, stateReadBuffer))); err != nil {
		return false, fmt.Errorf("%w %s: %v", ErrStateFile, p.name, err)
	}
	r.commit()
	return true, nil
}

// read restores the state file dec decodes: an object whose first field
// is the format version, its fields in the order of stateFields, and
// nothing after it.
func (r *restorer) read(dec *json.Decoder) error {
	var version int
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errNotStateFile
	}
	if tok, err := dec.Token(); err != nil || tok != "version" || dec.Decode(&version) != nil {
		return errNotStateFile
	}
	if version != stateVersion {
		return fmt.Errorf("format version %d, and this sandbox reads version %d: use the sandbox that wrote it, or remove the file to start empty",
			version, stateVersion)
	}
	last := "version"
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return corrupt(err)
		}
		field, _ := tok.(string)
		if rank, known := stateFields[field]; known {
			if rank <= stateFields[last] {
				return fmt.Errorf("%q comes after %q: the fields are in the order the sandbox writes them", field, last)
			}
			last = field
		}
		if err := r.field(dec, field); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return corrupt(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return corrupt(errors.New("data after the state"))
	}
	return nil
}

// corrupt is the error of a file that is no JSON, or not of the state's
// shape.
func corrupt(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("corrupt: %v", err)
}

// field restores the value of the state file's field.
func (r *restorer) field(dec *json.Decoder, field string) error {
	switch field {
	case "saved_at":
		var at time.Time
		return decodeInto(dec, &at)
	case "clock":
		var c savedClock
		if err := decodeInto(dec, &c); err != nil {
			return err
		}
		return r.clock(c)
	case "next_transaction", "next_user", "next_token", "last_delivery":
		var v int64
		if err := decodeInto(dec, &v); err != nil {
			return err
		}
		return r.counter(field, v)
	case "balances":
		var b map[string]map[string]decimal.Decimal
		if err := decodeInto(dec, &b); err != nil {
			return err
		}
		return r.balances(b)
	case "users":
		return eachRecord(dec, r.user)
	case "tokens":
		return eachRecord(dec, r.token)
	case "transactions":
		return eachRecord(dec, r.txn)
	case "subscriptions":
		return eachRecord(dec, r.subscription)
	case "deliveries":
		return eachRecord(dec, r.delivery)
	}
	var skip json.RawMessage
	return decodeInto(dec, &skip)
}

// decodeInto decodes the next value into v, a corrupt file when it cannot.
func decodeInto(dec *json.Decoder, v any) error {
	if err := dec.Decode(v); err != nil {
		return corrupt(err)
	}
	return nil
}

// eachRecord decodes the next value, a list (or null, none), one element
// at a time, each into a new T given to add.
func eachRecord[T any](dec *json.Decoder, add func(T) error) error {
	tok, err := dec.Token()
	switch {
	case err != nil:
		return corrupt(err)
	case tok == nil:
		return nil
	case tok != json.Delim('['):
		return corrupt(fmt.Errorf("a list expected, not %v", tok))
	}
	for dec.More() {
		var rec T
		if err := decodeInto(dec, &rec); err != nil {
			return err
		}
		if err := add(rec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return corrupt(err)
	}
	return nil
}
