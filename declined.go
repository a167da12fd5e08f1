package paygate

import (
	"errors"
	"strconv"
)

// ErrDeclined is matched (errors.Is) by a [*DeclinedError].
var ErrDeclined = errors.New("paygate: declined by the gateway")

// DeclinedError reports a request the gateway answered with success false
// and no error object: it received the request and refused it. Unlike an
// unknown outcome, nothing happened, so the caller decides what next (the
// gateway gives no reason; its status look-ups may tell more).
type DeclinedError struct {
	// Method and Path name the request, for example POST transaction/reverse.
	Method, Path string
	// ID and Status are the transaction or payout id and status the answer
	// carried, when it carried them.
	ID     ID
	Status string
}

// Error implements the error interface.
func (e *DeclinedError) Error() string {
	s := "paygate: " + e.Method + " " + e.Path + " declined: the gateway answered success false"
	if e.ID != 0 {
		s += " for id " + e.ID.String()
	}
	if e.Status != "" {
		s += " with status " + strconv.Quote(e.Status)
	}
	return s
}

// Is makes errors.Is(err, ErrDeclined) true.
func (e *DeclinedError) Is(target error) bool { return target == ErrDeclined }
