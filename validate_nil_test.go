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
	tests := []struct {
		name       string
		nil, empty func(*Client) error
		// extendedOnly calls fail with ErrBasicForm in the basic form,
		// with params or without.
		extendedOnly bool
	}{
		{"Users.Resolve",
			func(c *Client) error { return errOf(c.Users.Resolve(ctx, nil)) },
			func(c *Client) error { return errOf(c.Users.Resolve(ctx, &ResolveUserParams{})) }, false},
		{"Users.ChangeRecurring",
			func(c *Client) error { return c.Users.ChangeRecurring(ctx, nil) },
			func(c *Client) error { return c.Users.ChangeRecurring(ctx, &ChangeRecurringParams{}) }, false},
		{"Users.CancelRecurring",
			func(c *Client) error { return c.Users.CancelRecurring(ctx, nil) },
			func(c *Client) error { return c.Users.CancelRecurring(ctx, &CancelRecurringParams{}) }, false},
		{"Cards.Tokenize",
			func(c *Client) error { return errOf(c.Cards.Tokenize(ctx, nil)) },
			func(c *Client) error { return errOf(c.Cards.Tokenize(ctx, &TokenizeParams{})) }, false},
		{"Cards.Charge",
			func(c *Client) error { return errOf(c.Cards.Charge(ctx, nil)) },
			func(c *Client) error { return errOf(c.Cards.Charge(ctx, &ChargeParams{})) }, false},
		{"Cards.Authenticate",
			func(c *Client) error { return errOf(c.Cards.Authenticate(ctx, nil)) },
			func(c *Client) error { return errOf(c.Cards.Authenticate(ctx, &AuthenticateParams{})) }, false},
		{"Cards.ChargeRecurring",
			func(c *Client) error { return errOf(c.Cards.ChargeRecurring(ctx, nil)) },
			func(c *Client) error { return errOf(c.Cards.ChargeRecurring(ctx, &ChargeRecurringParams{})) }, false},
		{"Transactions.Status",
			func(c *Client) error { return errOf(c.Transactions.Status(ctx, nil)) },
			func(c *Client) error { return errOf(c.Transactions.Status(ctx, &TransactionStatusParams{})) }, false},
		{"Transactions.Reverse",
			func(c *Client) error { return errOf(c.Transactions.Reverse(ctx, nil)) },
			func(c *Client) error { return errOf(c.Transactions.Reverse(ctx, &ReverseParams{})) }, false},
		{"Transactions.Create",
			func(c *Client) error { return errOf(c.Transactions.Create(ctx, nil)) },
			func(c *Client) error { return errOf(c.Transactions.Create(ctx, &AlternativeCreateParams{})) }, true},
		{"Transactions.List",
			func(c *Client) error { return errOf(c.Transactions.List(ctx, nil)) },
			func(c *Client) error { return errOf(c.Transactions.List(ctx, &TransactionListParams{})) }, true},
		{"Transactions.All",
			func(c *Client) error { return firstOf(c.Transactions.All(ctx, nil)) },
			func(c *Client) error { return firstOf(c.Transactions.All(ctx, &TransactionListParams{})) }, true},
		{"Payouts.Parameters",
			func(c *Client) error { return errOf(c.Payouts.Parameters(ctx, nil)) },
			func(c *Client) error { return errOf(c.Payouts.Parameters(ctx, &PayoutParametersParams{})) }, false},
		{"Payouts.Create",
			func(c *Client) error { return errOf(c.Payouts.Create(ctx, nil)) },
			func(c *Client) error { return errOf(c.Payouts.Create(ctx, &PayoutParams{})) }, true},
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
