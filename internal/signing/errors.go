package signing

// The errors of a missing and of a wrong signature. Package callback
// exports them; the root package has sentinels of its own for the same two
// gateway codes (it returns them for the gateway's answers too), and
// registers them with Alias so that errors.Is matches either.
var (
	ErrMissing error = &sentinel{msg: "paygate: signature missing (40101, HTTP 401)"}
	ErrInvalid error = &sentinel{msg: "paygate: signature invalid (40301, HTTP 403)"}
)

// sentinel is an error that also matches one other error, set once by
// Alias.
type sentinel struct {
	msg  string
	same error
}

func (e *sentinel) Error() string { return e.msg }

// Is makes errors.Is(err, same) true for an err matching e.
func (e *sentinel) Is(target error) bool { return e.same != nil && target == e.same }

// Alias makes errors.Is(err, same) true for every err that matches
// sentinel (ErrMissing or ErrInvalid). The root package calls it from its
// init, before anything can read it: it cannot be imported from here.
func Alias(sentinelErr, same error) {
	sentinelErr.(*sentinel).same = same
}
