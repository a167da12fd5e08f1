package paygate

import (
	"context"

	"github.com/shopspring/decimal"
)

// UsersService is the users resource group of the API: it registers the
// merchant's users with the gateway and manages their recurring payments.
type UsersService service

// ResolveUserParams describe the user to resolve (POST user/resolve).
type ResolveUserParams struct {
	// Identifier is the merchant's own user id: unique and never changed.
	// Required.
	Identifier  string `url:"identifier"`
	DisplayName string `url:"display_name,omitempty"`
	// Email is the user's e-mail address; required in the basic form.
	Email string `url:"email,omitempty"`
	// Phone is in international format: digits only, without a leading +
	// or separators (for example 4915123456789).
	Phone string `url:"phone,omitempty"`
	// Locale is a two-letter ISO 639-1 code such as "en"; the project's
	// locale when empty.
	Locale string `url:"locale,omitempty"`
	// IP is the user's IP address. Required.
	IP string `url:"ip"`
	// UserAgent is the user's browser User-Agent, at most 255 characters.
	// The basic form does not accept it.
	UserAgent string `url:"ua,omitempty"`
}

// Resolve returns the gateway's internal id of the user (POST user/resolve),
// creating the user when the identifier is new. Charges and recurring calls
// take this id.
func (s *UsersService) Resolve(ctx context.Context, p *ResolveUserParams, opts ...CallOption) (UserID, error) {
	out, err := call[resolveResponse](ctx, s.client, epResolveUser, p, opts)
	if err != nil {
		return "", err
	}
	return out.ID, nil
}

// ChangeRecurringParams change a user's recurring payments (POST
// user/changeRecurring).
type ChangeRecurringParams struct {
	// User is the gateway's internal user id. Required.
	User UserID `url:"user"`
	// Interval is the number of days between recurring payments; nil leaves
	// it unchanged and Days(0) leaves only manual recurring
	// (CardsService.ChargeRecurring).
	Interval *int `url:"interval,omitempty"`
	// Price is the price of the recurring payments; zero leaves it
	// unchanged.
	Price decimal.Decimal `url:"price,omitempty"`
	// Currency is the ISO 4217 code of Price; required with a price.
	Currency string `url:"currency,omitempty"`
}

// ChangeRecurring changes the interval or price of a user's recurring
// payments (POST user/changeRecurring). When the gateway answers that it did
// not make the change ("success": false) the error matches ErrDeclined.
func (s *UsersService) ChangeRecurring(ctx context.Context, p *ChangeRecurringParams, opts ...CallOption) error {
	return doSuccess(ctx, s.client, epChangeRecurring, p, opts)
}

// CancelRecurringParams name the user whose recurring payments to cancel
// (POST user/cancelRecurring).
type CancelRecurringParams struct {
	// User is the gateway's internal user id. Required.
	User UserID `url:"user"`
}

// CancelRecurring ends a user's subscription to recurring payments (POST
// user/cancelRecurring). When the gateway answers that it did not cancel
// ("success": false) the error matches ErrDeclined.
func (s *UsersService) CancelRecurring(ctx context.Context, p *CancelRecurringParams, opts ...CallOption) error {
	return doSuccess(ctx, s.client, epCancelRecurring, p, opts)
}

// Days returns a pointer to n, for the day counts where nil means "not
// sent" and 0 is meaningful, such as ChangeRecurringParams.Interval and
// ChargeParams.RecurringInterval.
func Days(n int) *int { return &n }

func (p *ResolveUserParams) validate(f Form) error {
	if f == FormBasic {
		if p.UserAgent != "" {
			return &ValidationError{Field: "ua", Reason: "is not accepted in the basic form"}
		}
		if p.Email == "" {
			return &ValidationError{Field: "email", Reason: "is required in the basic form"}
		}
	}
	return firstError(
		checkUser(userFields{identifier: "identifier", phone: "phone", locale: "locale"}, p.Identifier, p.Phone, p.Locale),
		checkRequired("ip", p.IP),
		checkMaxLen("ua", p.UserAgent, MaxUserAgentLength),
	)
}

func (p *ChangeRecurringParams) validate(Form) error {
	if err := checkRequired("user", string(p.User)); err != nil {
		return err
	}
	if err := checkDays("interval", p.Interval); err != nil {
		return err
	}
	if p.Price.IsZero() {
		return nil
	}
	return firstError(checkAmount("price", p.Price), checkCurrency("currency", p.Currency))
}

func (p *CancelRecurringParams) validate(Form) error {
	return checkRequired("user", string(p.User))
}

type resolveResponse struct {
	ID UserID `json:"id"`
}

func (r *resolveResponse) verifyAnswer() error { return verifyIDNotEmpty("user", string(r.ID)) }

// successResponse is the body of the calls that answer only "success".
type successResponse struct {
	Success *bool `json:"success"`
}

// doSuccess sends a call whose answer is only "success" and turns false
// into an error, so that a change the gateway refused cannot pass unnoticed.
func doSuccess[P any](ctx context.Context, c *Client, name endpointName, p *P, opts []CallOption) error {
	out, err := call[successResponse](ctx, c, name, p, opts)
	if err != nil {
		return err
	}
	if !*out.Success {
		return endpoints[name].declined(0, "")
	}
	return nil
}
