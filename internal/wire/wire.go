// Package wire holds the vocabulary the client (package paygate) and the
// webhook side (package callback) share: a transaction id, a user id, the
// interface's form and the error of a rejected parameter. The root package
// exports each under its own name as an alias, so that a callback's ID is
// a paygate.ID with no conversion, and package callback need not import
// the client.
package wire

import (
	"strconv"

	"github.com/paygate/paygate-go/internal/jsonscalar"
)

// ID is a transaction id: a 64-bit integer (19 digits, beyond what a
// float64 holds exactly). It decodes from a JSON number or string, exactly,
// and encodes as a JSON string so that JavaScript consumers keep it exact.
// The zero ID means absent.
type ID int64

// ParseID parses a decimal transaction id.
func ParseID(s string) (ID, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &ValidationError{Field: "id", Reason: "not a 64-bit decimal integer"}
	}
	return ID(n), nil
}

// String returns the id in decimal.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// UnmarshalJSON accepts a number, a numeric string or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	n, err := jsonscalar.Int64(b)
	if err != nil {
		return err
	}
	*id = ID(n)
	return nil
}

// MarshalJSON writes the id as a JSON string.
func (id ID) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, id.String()), nil
}

// UserID is the gateway's internal user id. The gateway documents it as a
// string and sends integers in its examples; both decode.
type UserID string

// UnmarshalJSON accepts a string, a number or null.
func (u *UserID) UnmarshalJSON(b []byte) error {
	s, err := jsonscalar.Text(b)
	*u = UserID(s)
	return err
}

// Form selects the basic or the extended form of the gateway's interface.
type Form int

const (
	// FormExtended is the full interface, and the client's default.
	FormExtended Form = iota
	// FormBasic is the reduced interface: resolve needs an e-mail, charges
	// take only a token and an internal user id, and transaction/create,
	// payouts, balance and transaction listings do not exist.
	FormBasic
)

// String returns "extended" or "basic".
func (f Form) String() string {
	if f == FormBasic {
		return "basic"
	}
	return "extended"
}

// ValidationError reports a parameter the SDK rejected before sending
// anything. Field is the parameter's name as the gateway knows it (for
// example "order_id" or "card[number]"); the value itself is never quoted.
type ValidationError struct {
	Field  string
	Reason string
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	return "paygate: invalid parameter " + e.Field + ": " + e.Reason
}
