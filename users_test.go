package paygate

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve_SendsEveryFieldSignedAndReturnsTheInternalID(t *testing.T) {
	t.Parallel()
	id, r := exchange(t, http.MethodPost, "user/resolve", "user_resolve.json", func(c *Client) (UserID, error) {
		return c.Users.Resolve(context.Background(), &ResolveUserParams{
			Identifier:  "cust-8841",
			DisplayName: "Jane Doe",
			Email:       "jane.doe@example.com",
			Phone:       "4915123456789",
			Locale:      "en",
			IP:          "203.0.113.7",
			UserAgent:   "Mozilla/5.0 (X11; Linux x86_64)",
		})
	})
	assert.Equal(t, UserID("100452"), id)
	assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
	requireSignedFields(t, r, map[string]string{
		"identifier":   "cust-8841",
		"display_name": "Jane Doe",
		"email":        "jane.doe@example.com",
		"phone":        "4915123456789",
		"locale":       "en",
		"ip":           "203.0.113.7",
		"ua":           "Mozilla/5.0 (X11; Linux x86_64)",
	})
}

func TestResolve_SendsOnlyTheRequiredFieldsWhenNothingElseIsSet(t *testing.T) {
	t.Parallel()
	r := requestSent(t, http.MethodPost, "user/resolve", "user_resolve.json", resolveWith(&ResolveUserParams{Identifier: "cust-8841", IP: "2001:db8::7"}))
	requireSignedFields(t, r, map[string]string{"identifier": "cust-8841", "ip": "2001:db8::7"})
}

func TestResolve_BasicFormSendsEmailAndNoUserAgent(t *testing.T) {
	t.Parallel()
	id, r := exchange(t, http.MethodPost, "user/resolve", "user_resolve.json", func(c *Client) (UserID, error) {
		return c.Users.Resolve(context.Background(), &ResolveUserParams{
			Identifier: "cust-8841", Email: "jane.doe@example.com", IP: "203.0.113.7",
		})
	}, WithForm(FormBasic))
	assert.Equal(t, UserID("100452"), id)
	requireSignedFields(t, r, map[string]string{"identifier": "cust-8841", "email": "jane.doe@example.com", "ip": "203.0.113.7"})
}

func TestResolve_DecodesAStringID(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "user/resolve", 200, "user_resolve_string_id.json")

	id, err := c.Users.Resolve(context.Background(), &ResolveUserParams{Identifier: "cust-8841", IP: "203.0.113.7"})
	require.NoError(t, err)
	assert.Equal(t, UserID("u_7c1e4b"), id)
}

func TestResolve_ResponseWithoutIDIsAnError(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{}`, `{"id":null}`, `{"id":""}`} {
		t.Run(body, func(t *testing.T) {
			c, _ := stubEndpoint(t, http.MethodPost, "user/resolve", httpmock.NewStringResponder(200, body))

			id, err := c.Users.Resolve(context.Background(), &ResolveUserParams{Identifier: "cust-8841", IP: "203.0.113.7"})
			require.Error(t, err)
			assert.Empty(t, id)
			requireResponseError(t, err, "id")
		})
	}
}

func TestResolve_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	testGatewayErrors(t, http.MethodPost, "user/resolve", resolveWith(&ResolveUserParams{Identifier: "cust-8841", IP: "203.0.113.7"}), []gatewayErrorCase{
		{"", "error_user_email_missing.json", ErrUserEmailMissing},
		{"", "error_user_ip_missing.json", ErrUserIPMissing},
		{"", "error_user_blocked.json", ErrUserBlocked},
	})
}

func TestChangeRecurring_ZeroIntervalIsSentAndNilIsNot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params ChangeRecurringParams
		want   map[string]string
	}{
		{
			name:   "interval zero leaves only manual recurring",
			params: ChangeRecurringParams{User: "100452", Interval: Days(0)},
			want:   map[string]string{"user": "100452", "interval": "0"},
		},
		{
			name:   "interval and price",
			params: ChangeRecurringParams{User: "100452", Interval: Days(30), Price: decimal.RequireFromString("9.99"), Currency: "EUR"},
			want:   map[string]string{"user": "100452", "interval": "30", "price": "9.99", "currency": "EUR"},
		},
		{
			name:   "price only",
			params: ChangeRecurringParams{User: "100452", Price: decimal.RequireFromString("12.50"), Currency: "USD"},
			want:   map[string]string{"user": "100452", "price": "12.50", "currency": "USD"},
		},
		{
			name:   "nothing to change but the user",
			params: ChangeRecurringParams{User: "100452"},
			want:   map[string]string{"user": "100452"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := requestSent(t, http.MethodPost, "user/changeRecurring", "user_recurring_success.json", changeWith(tt.params))
			assert.Equal(t, "/v1/user/changeRecurring", r.Path)
			requireSignedFields(t, r, tt.want)
		})
	}
}

func TestCancelRecurring_SendsTheUserSigned(t *testing.T) {
	t.Parallel()
	r := requestSent(t, http.MethodPost, "user/cancelRecurring", "user_recurring_success.json", func(c *Client) error {
		return c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{User: "100452"})
	})
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/v1/user/cancelRecurring", r.Path)
	requireSignedFields(t, r, map[string]string{"user": "100452"})
}

func TestRecurringCalls_SuccessFalseIsErrDeclined(t *testing.T) {
	t.Parallel()
	calls := map[string]func(*Client) error{
		"user/changeRecurring": func(c *Client) error {
			return c.Users.ChangeRecurring(context.Background(), &ChangeRecurringParams{User: "100452", Interval: Days(14)})
		},
		"user/cancelRecurring": func(c *Client) error {
			return c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{User: "100452"})
		},
	}
	for path, call := range calls {
		t.Run(path, func(t *testing.T) {
			c, _ := stubFixture(t, http.MethodPost, path, 200, "user_recurring_unsuccessful.json")

			err := call(c)
			require.ErrorIs(t, err, ErrDeclined)
			assert.Contains(t, err.Error(), path)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown, "the gateway answered clearly")
		})
	}
}

func TestRecurringCalls_AnswerWithoutSuccessIsAnError(t *testing.T) {
	t.Parallel()
	requireMalformedAnswer(t, http.MethodPost, "user/cancelRecurring", httpmock.NewStringResponder(200, `{}`), "success", func(c *Client) error {
		return c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{User: "100452"})
	})
}

func TestRecurringCalls_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	notDeclined := func(t *testing.T, err error) { assert.NotErrorIs(t, err, ErrDeclined) }
	t.Run("user/changeRecurring", func(t *testing.T) {
		testGatewayErrors(t, http.MethodPost, "user/changeRecurring", changeWith(ChangeRecurringParams{User: "100452", Interval: Days(7)}), []gatewayErrorCase{
			{"", "error_user_not_found.json", ErrUserNotFound},
			{"", "error_recurring_disabled.json", ErrRecurringDisabled},
		}, notDeclined)
	})
	t.Run("user/cancelRecurring", func(t *testing.T) {
		testGatewayErrors(t, http.MethodPost, "user/cancelRecurring", func(c *Client) error {
			return c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{User: "100452"})
		}, []gatewayErrorCase{
			{"", "error_user_not_found.json", ErrUserNotFound},
			{"", "error_recurring_expired.json", ErrRecurringExpired},
		}, notDeclined)
	})
}

func TestUsers_InvalidParamsAreRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	valid := func() *ResolveUserParams {
		return &ResolveUserParams{Identifier: "cust-8841", Email: "jane.doe@example.com", IP: "203.0.113.7"}
	}
	tests := []struct {
		name  string
		form  Form
		call  func(*Client) error
		field string
	}{
		{"resolve nil params", FormExtended, resolveWith(nil), "identifier"},
		{"resolve identifier missing", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Identifier = "" })), "identifier"},
		{"resolve ip missing", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.IP = "" })), "ip"},
		{"resolve phone with plus", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Phone = "+4915123456789" })), "phone"},
		{"resolve phone with separators", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Phone = "49 151 2345" })), "phone"},
		{"resolve locale not ISO 639-1", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Locale = "en-US" })), "locale"},
		{"resolve locale uppercase", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Locale = "EN" })), "locale"},
		{"resolve ua over 255", FormExtended, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.UserAgent = strings.Repeat("a", 256) })), "ua"},
		{"resolve basic form without email", FormBasic, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.Email = "" })), "email"},
		{"resolve basic form with ua", FormBasic, resolveWith(edit(valid(), func(p *ResolveUserParams) { p.UserAgent = "Mozilla/5.0" })), "ua"},
		{"change nil params", FormExtended, func(c *Client) error { return c.Users.ChangeRecurring(context.Background(), nil) }, "user"},
		{"change user missing", FormExtended, changeWith(ChangeRecurringParams{Interval: Days(7)}), "user"},
		{"change negative interval", FormExtended, changeWith(ChangeRecurringParams{User: "100452", Interval: Days(-1)}), "interval"},
		{"change price without currency", FormExtended, changeWith(ChangeRecurringParams{User: "100452", Price: decimal.RequireFromString("9.99")}), "currency"},
		{"change currency lowercase", FormExtended, changeWith(ChangeRecurringParams{User: "100452", Price: decimal.RequireFromString("9.99"), Currency: "EU"}), "currency"},
		{"change negative price", FormExtended, changeWith(ChangeRecurringParams{User: "100452", Price: decimal.RequireFromString("-1"), Currency: "EUR"}), "price"},
		{"change interval overflowing a time.Duration", FormExtended, changeWith(ChangeRecurringParams{User: "100452", Interval: Days(MaxRecurringDays + 1)}), "interval"},
		{"cancel nil params", FormExtended, func(c *Client) error { return c.Users.CancelRecurring(context.Background(), nil) }, "user"},
		{"cancel user missing", FormExtended, func(c *Client) error {
			return c.Users.CancelRecurring(context.Background(), &CancelRecurringParams{})
		}, "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireRejectedLocally(t, tt.field, tt.call, WithForm(tt.form))
		})
	}
}

func resolveWith(p *ResolveUserParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Users.Resolve(context.Background(), p)) }
}

func changeWith(p ChangeRecurringParams) func(*Client) error {
	return func(c *Client) error { return c.Users.ChangeRecurring(context.Background(), &p) }
}

func TestResolve_UserAgentOf255CharactersIsSent(t *testing.T) {
	t.Parallel()
	ua := strings.Repeat("ü", MaxUserAgentLength)
	r := requestSent(t, http.MethodPost, "user/resolve", "user_resolve.json", resolveWith(&ResolveUserParams{Identifier: "cust-8841", IP: "203.0.113.7", UserAgent: ua}))
	assert.Equal(t, ua, r.Params.Get("ua"))
}
