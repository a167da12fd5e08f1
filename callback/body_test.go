package callback

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A body up to a few KiB is read into its string directly, at the length
// the request declares: a body longer or shorter than declared is still
// read to its end, as a body of unknown length is.
func TestParseRequest_BodyLengthOtherThanDeclared(t *testing.T) {
	raw := callbackFixture(t, "extended_completed.txt")
	v := testVerifier(t)
	for name, declared := range map[string]int64{
		"as declared":                   int64(len(raw)),
		"longer than declared":          int64(len(raw)) - 10,
		"one byte longer":               int64(len(raw)) - 1,
		"shorter than declared":         int64(len(raw)) + 10,
		"unknown length":                -1,
		"declared past the direct read": maxDirectBody + 1,
	} {
		t.Run(name, func(t *testing.T) {
			r := callbackRequest(raw)
			r.ContentLength = declared
			cb, err := v.ParseRequest(r)
			require.NoError(t, err)
			assert.Equal(t, ID(9007199254740993), cb.ID)
			assert.Equal(t, "eu-west", cb.Attrs["realm"])
		})
	}
}
