package paygate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nil params pointer is an empty request: the call fails before anything
// is sent, with the same *ValidationError, naming the same field, as an
// empty struct gets.
func TestNilParamsAreEmptyParams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type nilCase struct {
		name       string
		nil, empty func(*Client) error
		// extendedOnly calls fail with ErrBasicForm in the basic form,
		// with params or without.
		extendedOnly bool
	}
	var tests []nilCase
	cases := endpointCases()
	for _, name := range endpointNames() {
		for _, sc := range cases[name].calls {
			if sc.withNil == nil {
				continue // the method takes no params
			}
			tests = append(tests, nilCase{sc.name,
				func(c *Client) error { return sc.withNil(ctx, c) },
				func(c *Client) error { return sc.withEmpty(ctx, c) },
				endpoints[name].extendedOnly})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, f := range []Form{FormExtended, FormBasic} {
				if f == FormBasic && tt.extendedOnly {
					continue
				}
				c, mock := newSilentMock(t, WithForm(f))
				empty := tt.empty(c)
				var ve *ValidationError
				require.ErrorAs(t, empty, &ve, "%s form, empty params", f)
				assert.Equal(t, empty, tt.nil(c), "%s form: nil params must fail as empty params do", f)
				assert.Zero(t, mock.GetTotalCallCount(), "no request may be sent")
			}
		})
	}
}

// firstOf returns the error of the first pair an iteration yields.
func firstOf[V any](seq func(func(V, error) bool)) error {
	for _, err := range seq {
		return err
	}
	return nil
}
