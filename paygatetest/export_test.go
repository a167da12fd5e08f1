package paygatetest

import "time"

// WithServerTimeouts sets the server's timeouts, so that a test of them
// does not wait for the defaults.
func WithServerTimeouts(readHeader, read, write, idle time.Duration) Option {
	return func(c *config) { c.timeouts = serverTimeouts{readHeader: readHeader, read: read, write: write, idle: idle} }
}
