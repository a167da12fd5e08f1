package paygatetest

import (
	"bufio"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flattenJSON reads body as readParams reads a JSON body.
func flattenJSON(body io.Reader) (url.Values, error) {
	p := paramReader{out: url.Values{}}
	if err := p.json(bufio.NewReaderSize(body, readBuffer)); err != nil {
		return nil, err
	}
	return p.out, nil
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A body that passes a bound is refused having read at most one buffer
// beyond the byte that passed it: no key, value or nesting past the bound
// is ever read, let alone built.
func TestFlattenJSON_StopsReadingWhereABoundIsPassed(t *testing.T) {
	const readAhead = 4096 // the reader's buffer
	for _, tc := range []struct {
		name, body string
		boundAt    int // offset of the first byte past the bound
		message    string
	}{
		{"long name", `{"` + strings.Repeat("k", 1<<20) + `":1}`, 2 + maxKeyLength, "parameter name is longer than"},
		{"long nested name", `{"card":{"` + strings.Repeat("k", 1<<20) + `":1}}`, 10 + maxKeyLength - 6, "parameter name is longer than"},
		{"long value", `{"a":"` + strings.Repeat("v", 1<<20) + `"}`, 6 + maxParamLength, "a is longer than"},
		{"long number", `{"a":` + strings.Repeat("9", 1<<20) + `}`, 5 + maxParamLength, "a is longer than"},
		{"deep nesting", `{"a":` + strings.Repeat("[", 1<<20), 5 + maxJSONDepth, "nested deeper than"},
		{"many values", `{"a":[` + strings.Repeat("[],", 1<<20) + `[]]}`, 6 + 3*maxParams, "more than 256 parameters"},
		{"long key over empty arrays", `{"` + strings.Repeat("k", 1<<19) + `":[` + strings.Repeat("[],", 1<<18) + `[]]}`, 2 + maxKeyLength, "parameter name is longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingReader{r: strings.NewReader(tc.body)}
			_, err := flattenJSON(body)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.message)
			assert.LessOrEqual(t, body.n, tc.boundAt+readAhead, "bytes read of a %d-byte body", len(tc.body))
		})
	}
}
