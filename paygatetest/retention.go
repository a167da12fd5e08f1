package paygatetest

// DefaultRetention is how many transactions a server keeps by default; see
// WithRetention.
const DefaultRetention = 100000

// WithRetention sets how many transactions the server keeps (default
// DefaultRetention), so that a sandbox serving for weeks holds bounded
// memory. Beyond n, the oldest transactions in a final state are dropped
// with their callbacks; a transaction still in flight (opened,
// authenticating, processing, waiting for approval, or with a callback
// not yet done) is never dropped, and counts towards n. A dropped
// transaction is answered as one never made: 40403. n below 1 leaves the
// default.
func WithRetention(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.retention = n
		}
	}
}
