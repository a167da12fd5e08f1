package paygate

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Test card numbers (Luhn-valid).
const (
	visaApproved = "4242424242424242"
	visa3DS      = "4000000000003220"
)

func validTokenize() *TokenizeParams {
	return &TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("123")}
}

func validCharge() *ChargeParams {
	return &ChargeParams{
		User:        "100452",
		CardToken:   NewCardToken("5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45"),
		Price:       decimal.RequireFromString("24.90"),
		Currency:    "EUR",
		Description: "Order ord-20261122-0001",
	}
}

// validChargeFields are the form fields validCharge is sent as.
func validChargeFields() map[string]string {
	return map[string]string{
		"user":        "100452",
		"card_token":  "5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45",
		"price":       "24.90",
		"currency":    "EUR",
		"description": "Order ord-20261122-0001",
	}
}

// validChargeRecurring is the smallest charge of a subscribed user.
func validChargeRecurring() *ChargeRecurringParams {
	return &ChargeRecurringParams{User: "100452", Price: decimal.RequireFromString("9.99"), Currency: "EUR"}
}

func TestTokenize_IsAnUnsignedGETWithTheCardData(t *testing.T) {
	t.Parallel()
	for _, form := range []Form{FormExtended, FormBasic} {
		t.Run(form.String(), func(t *testing.T) {
			tok, r := exchange(t, http.MethodGet, "card/getToken", "card_get_token.json", func(c *Client) (*Token, error) {
				return c.Cards.Tokenize(context.Background(), validTokenize())
			}, WithForm(form))
			requireUnsigned(t, r)
			requireFields(t, r, map[string]string{
				"number":           visaApproved,
				"expiration_month": "12",
				"expiration_year":  "2030",
				"security_code":    "123",
			})

			assert.Equal(t, "5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45", tok.ID)
			assert.True(t, tok.ExpiresAt.Equal(time.Date(2026, 11, 22, 2, 24, 7, 0, time.UTC)))
			assert.Equal(t, Card{LastFour: "4242", Mask: "************4242", Type: "visa", Scheme: "visa", ExpirationMonth: 12, ExpirationYear: 2030}, tok.Card)
		})
	}
}

func TestTokenize_ResponseWithoutIDIsAnError(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "card/getToken", httpmock.NewStringResponder(200, `{"expiresAt":"2026-11-22T02:24:07+00:00","card":{}}`))

	tok, err := c.Cards.Tokenize(context.Background(), validTokenize())
	assert.Nil(t, tok)
	requireResponseError(t, err, "id")
}

func TestTokenize_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	testGatewayErrors(t, http.MethodGet, "card/getToken", tokenizeWith(validTokenize()), []gatewayErrorCase{
		{"", "error_card_number_invalid.json", ErrCardNumberInvalid},
		{"", "error_security_code_invalid.json", ErrSecurityCodeInvalid},
		{"", "error_card_blocked.json", ErrCardBlocked},
	}, func(t *testing.T, err error) {
		assert.NotContains(t, err.Error(), visaApproved)
	})
}

func TestCharge_WithTokenAndUserIDSendsExactlyTheGivenFieldsSigned(t *testing.T) {
	t.Parallel()
	for _, form := range []Form{FormExtended, FormBasic} {
		t.Run(form.String(), func(t *testing.T) {
			p := validCharge()
			p.OrderID = "ord-20261122-0001"
			p.ThreeDS = true
			p.ACSReturnURL = "https://shop.example/checkout/3ds-return?order=ord-20261122-0001"
			p.Remember = true
			p.VerifyCard = true
			p.Recurring = true
			p.RecurringInterval = Days(30)
			p.RecurringTrial = 7
			p.Attributes = map[string]string{"realm": "eu-west", "campaign": "black-friday"}
			r := requestSent(t, http.MethodPost, "card/process", "card_process_"+form.String()+".json", chargeWith(p), WithForm(form))
			// validCharge's fields and every optional one set above.
			want := validChargeFields()
			maps.Copy(want, map[string]string{
				"order_id":           "ord-20261122-0001",
				"3ds":                "1",
				"acs_return_url":     "https://shop.example/checkout/3ds-return?order=ord-20261122-0001",
				"remember":           "1",
				"verify_card":        "1",
				"recurring":          "1",
				"recurring_interval": "30",
				"recurring_trial":    "7",
				"attr_realm":         "eu-west",
				"attr_campaign":      "black-friday",
			})
			requireSignedFields(t, r, want)
		})
	}
}

func TestCharge_MinimalChargeSendsOnlyTheRequiredFields(t *testing.T) {
	t.Parallel()
	r := chargeSent(t, validCharge())
	requireSignedFields(t, r, validChargeFields())
}

func TestCharge_RecurringIntervalZeroIsSent(t *testing.T) {
	t.Parallel()
	p := validCharge()
	p.Recurring = true
	p.RecurringInterval = Days(0)
	r := chargeSent(t, p)
	assert.Equal(t, "1", r.Params.Get("recurring"))
	assert.Equal(t, []string{"0"}, r.Params["recurring_interval"])
	assert.NotContains(t, r.Params, "recurring_trial")
}

func TestCharge_CardAndUserObjectsAreSentInBracketNotation(t *testing.T) {
	t.Parallel()
	r := chargeSent(t, &ChargeParams{
		UserDetails: &UserDetails{
			Identifier:  "cust-8841",
			DisplayName: "Jane Doe",
			Email:       "jane.doe@example.com",
			Phone:       "4915123456789",
			Locale:      "de",
			IP:          "203.0.113.7",
		},
		Card: &CardDetails{
			Number:       NewCardNumber(visaApproved),
			Expiry:       NewExpiry(1, 2031),
			SecurityCode: NewSecurityCode("0421"),
			Holder:       "JANE DOE",
		},
		Price:       decimal.RequireFromString("0.50"),
		Currency:    "USD",
		Description: "Sticker",
	})
	requireSignedFields(t, r, map[string]string{
		"user[identifier]":       "cust-8841",
		"user[displayName]":      "Jane Doe",
		"user[email]":            "jane.doe@example.com",
		"user[phone]":            "4915123456789",
		"user[locale]":           "de",
		"user[ip]":               "203.0.113.7",
		"card[number]":           visaApproved,
		"card[expiration_month]": "1",
		"card[expiration_year]":  "2031",
		"card[security_code]":    "0421",
		"card[holder]":           "JANE DOE",
		"price":                  "0.50",
		"currency":               "USD",
		"description":            "Sticker",
	})
}

func TestCharge_DecodesBothForms(t *testing.T) {
	t.Parallel()
	t.Run("extended", func(t *testing.T) {
		c, _ := stubFixture(t, http.MethodPost, "card/process", 200, "card_process_extended.json")

		pay, err := c.Cards.Charge(context.Background(), validCharge())
		require.NoError(t, err)
		assert.Equal(t, ID(4611686018427387913), pay.ID, "a 19-digit id stays exact")
		assert.Equal(t, "4611686018427387913", pay.ID.String())
		assert.True(t, pay.Success)
		assert.Equal(t, "ord-20261122-0001", pay.OrderID)
		assert.Zero(t, pay.ReferenceID)
		assert.True(t, decimal.RequireFromString("24.90").Equal(pay.Price))
		assert.Equal(t, "0.747", pay.Fee.String())
		assert.Equal(t, "EUR", pay.Currency)
		assert.Equal(t, TypePayment, pay.Type)
		assert.Equal(t, StatusCompleted, pay.Status)
		assert.True(t, pay.CreatedAt.Equal(time.Date(2026, 11, 22, 2, 14, 7, 0, time.UTC)))
		assert.True(t, pay.UpdatedAt.Equal(time.Date(2026, 11, 22, 2, 14, 9, 0, time.UTC)))
		require.NotNil(t, pay.User)
		assert.Equal(t, UserID("100452"), pay.User.ID)
		assert.Equal(t, "cust-8841", pay.User.Identifier)
		require.NotNil(t, pay.Card)
		assert.Equal(t, "4242", pay.Card.LastFour)
		assert.Equal(t, "JANE DOE", pay.Card.Holder)
		assert.Equal(t, "DE", pay.Card.Country)
		assert.Nil(t, pay.ACS)
		assert.Equal(t, "8d3b6f1e0a2c4e7b9f5d1a3c6e8b0d2f", pay.PermanentToken)
		require.NotNil(t, pay.Recurring)
		assert.Equal(t, 30, pay.Recurring.Frequency)
		assert.True(t, pay.Completed())
		assert.False(t, pay.NeedsAuthentication())
	})
	t.Run("basic", func(t *testing.T) {
		c, _ := stubFixture(t, http.MethodPost, "card/process", 200, "card_process_basic.json", WithForm(FormBasic))

		pay, err := c.Cards.Charge(context.Background(), validCharge())
		require.NoError(t, err)
		assert.Equal(t, ID(4611686018427387913), pay.ID, "a 19-digit id sent as a string stays exact")
		assert.True(t, pay.Success)
		require.NotNil(t, pay.Card)
		assert.Equal(t, 12, pay.Card.ExpirationMonth)
		assert.Equal(t, 2030, pay.Card.ExpirationYear)
		assert.Nil(t, pay.ACS)
		assert.Empty(t, pay.PermanentToken)
		assert.Nil(t, pay.Recurring)
		assert.Nil(t, pay.User)
		assert.Empty(t, pay.Status)
		assert.False(t, pay.NeedsAuthentication())
		assert.False(t, pay.Failed())
	})
}

func TestCharge_NeedsAuthenticationInBothFormsOnlyFor3DS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		form    Form
		want    bool
		failed  bool
	}{
		{"card_process_3ds_extended.json", FormExtended, true, false},
		{"card_process_3ds_basic.json", FormBasic, true, false},
		{"card_process_extended.json", FormExtended, false, false},
		{"card_process_basic.json", FormBasic, false, false},
		{"card_process_failed_extended.json", FormExtended, false, true},
		{"card_process_failed_basic.json", FormBasic, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			c, _ := stubFixture(t, http.MethodPost, "card/process", 200, tt.fixture, WithForm(tt.form))

			pay, err := c.Cards.Charge(context.Background(), validCharge())
			require.NoError(t, err, "a declined payment is a result, not an error")
			assert.Equal(t, tt.want, pay.NeedsAuthentication())
			assert.Equal(t, tt.failed, pay.Failed())
			if tt.want {
				require.NotNil(t, pay.ACS)
				assert.Equal(t, "https://acs.bank.example/3ds/pareq?session=ab12&lang=en", pay.ACS.URL)
				assert.True(t, strings.HasPrefix(pay.ACS.Parameters.PaReq, "eJxVUttugkAQ"))
				assert.Equal(t, "NDYxMTY4NjAxODQyNzM4Nzk1MTpjdXN0LTg4NDE=", pay.ACS.Parameters.MD)
				assert.Equal(t, "https://shop.example/checkout/3ds-return?order=ord-20261122-0002", pay.ACS.Parameters.TermURL)
				assert.Equal(t, ID(4611686018427387951), pay.ID)
				assert.False(t, pay.Completed())
			}
		})
	}
}

func TestCharge_ResponseWithoutIDIsAnErrorWithOutcomeUnknown(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodPost, "card/process", httpmock.NewStringResponder(200, `{"success":true,"status":"completed"}`))

	p := validCharge()
	p.OrderID = "ord-20261122-0009"
	pay, err := c.Cards.Charge(context.Background(), p)
	assert.Nil(t, pay)
	requireResponseError(t, err, "id")
	// Without an id nobody can tell whether the card was charged.
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	var oue *OutcomeUnknownError
	require.ErrorAs(t, err, &oue)
	assert.Equal(t, "ord-20261122-0009", oue.OrderID)
}

func TestCharge_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	testGatewayErrors(t, http.MethodPost, "card/process", chargeWith(validCharge()), []gatewayErrorCase{
		{"TokenReuseIsErrCardTokenUsed", "error_card_token_used.json", ErrCardTokenUsed},
		{"LateTokenIsErrCardTokenExpired", "error_card_token_expired.json", ErrCardTokenExpired},
		{"UnknownTokenIsErrCardTokenInvalid", "error_card_token_invalid.json", ErrCardTokenInvalid},
		{"BlockedCardIsErrCardBlocked", "error_card_blocked.json", ErrCardBlocked},
		{"UnknownUserIsErrUserNotFound", "error_user_not_found.json", ErrUserNotFound},
		{"RememberingOffIsErrCardRememberingDisabled", "error_card_remembering_disabled.json", ErrCardRememberingDisabled},
	})
}

func TestCharge_BasicFormRejectsCardAndUserObjectsLocally(t *testing.T) {
	t.Parallel()
	tests := []editCase[ChargeParams]{
		{"card object", func(p *ChargeParams) {
			p.CardToken = CardToken{}
			p.Card = &CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("123")}
		}, "card"},
		{"user object", func(p *ChargeParams) {
			p.User = ""
			p.UserDetails = &UserDetails{Identifier: "cust-8841", IP: "203.0.113.7"}
		}, "user"},
	}
	testRejectedLocally(t, chargeWith, edited(validCharge, tests), func(t *testing.T, err error) {
		assert.Contains(t, err.Error(), "basic form")
	}, WithForm(FormBasic))
}

func TestCharge_InvalidParamsAreRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	card := func() *CardDetails {
		return &CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("123"), Holder: "JANE DOE"}
	}
	withCard := func(change func(*CardDetails)) func(*ChargeParams) {
		return func(p *ChargeParams) {
			p.CardToken = CardToken{}
			p.Card = card()
			change(p.Card)
		}
	}
	withUser := func(change func(*UserDetails)) func(*ChargeParams) {
		return func(p *ChargeParams) {
			p.User = ""
			p.UserDetails = &UserDetails{Identifier: "cust-8841", Email: "jane.doe@example.com", IP: "203.0.113.7"}
			change(p.UserDetails)
		}
	}
	tests := []editCase[ChargeParams]{
		{"no user", func(p *ChargeParams) { p.User = "" }, "user"},
		{"user id and user object", func(p *ChargeParams) { p.UserDetails = &UserDetails{Identifier: "cust-8841", IP: "203.0.113.7"} }, "user"},
		{"user object without identifier", withUser(func(u *UserDetails) { u.Identifier = "" }), "user[identifier]"},
		{"user object phone with plus", withUser(func(u *UserDetails) { u.Phone = "+4915123456789" }), "user[phone]"},
		{"user object bad locale", withUser(func(u *UserDetails) { u.Locale = "deu" }), "user[locale]"},
		{"no card", func(p *ChargeParams) { p.CardToken = CardToken{} }, "card_token"},
		{"token and card", func(p *ChargeParams) { p.Card = card() }, "card"},
		{"card number missing", withCard(func(c *CardDetails) { c.Number = CardNumber{} }), "card[number]"},
		{"card number with spaces", withCard(func(c *CardDetails) { c.Number = NewCardNumber("4242 4242 4242 4242") }), "card[number]"},
		{"card number fails Luhn", withCard(func(c *CardDetails) { c.Number = NewCardNumber("4242424242424241") }), "card[number]"},
		{"expiration month 0", withCard(func(c *CardDetails) { c.Expiry = NewExpiry(0, 2030) }), "card[expiration_month]"},
		{"expiration month 13", withCard(func(c *CardDetails) { c.Expiry = NewExpiry(13, 2030) }), "card[expiration_month]"},
		{"expiration year two digits", withCard(func(c *CardDetails) { c.Expiry = NewExpiry(12, 30) }), "card[expiration_year]"},
		{"security code missing", withCard(func(c *CardDetails) { c.SecurityCode = SecurityCode{} }), "card[security_code]"},
		{"security code letters", withCard(func(c *CardDetails) { c.SecurityCode = NewSecurityCode("12a") }), "card[security_code]"},
		{"security code five digits", withCard(func(c *CardDetails) { c.SecurityCode = NewSecurityCode("12345") }), "card[security_code]"},
		{"holder over 21 characters", withCard(func(c *CardDetails) { c.Holder = "JANE ALEXANDRA DOE-SMI" }), "card[holder]"},
		{"price zero", func(p *ChargeParams) { p.Price = decimal.Zero }, "price"},
		{"price negative", func(p *ChargeParams) { p.Price = decimal.RequireFromString("-24.90") }, "price"},
		{"price with three decimals", func(p *ChargeParams) { p.Price = decimal.RequireFromString("24.901") }, "price"},
		{"price beyond decimal(12,2)", func(p *ChargeParams) { p.Price = decimal.RequireFromString("10000000000") }, "price"},
		{"currency missing", func(p *ChargeParams) { p.Currency = "" }, "currency"},
		{"currency four letters", func(p *ChargeParams) { p.Currency = "EURO" }, "currency"},
		{"description missing", func(p *ChargeParams) { p.Description = "" }, "description"},
		{"order id over 64", func(p *ChargeParams) { p.OrderID = strings.Repeat("o", 65) }, "order_id"},
		{"recurring without interval", func(p *ChargeParams) { p.Recurring = true }, "recurring_interval"},
		{"interval overflowing a time.Duration", func(p *ChargeParams) { p.Recurring, p.RecurringInterval = true, Days(MaxRecurringDays+1) }, "recurring_interval"},
		{"trial overflowing a time.Duration", func(p *ChargeParams) {
			p.Recurring, p.RecurringInterval, p.RecurringTrial = true, Days(30), MaxRecurringDays+1
		}, "recurring_trial"},
		{"negative interval", func(p *ChargeParams) { p.Recurring, p.RecurringInterval = true, Days(-1) }, "recurring_interval"},
		{"negative trial", func(p *ChargeParams) { p.Recurring, p.RecurringInterval, p.RecurringTrial = true, Days(30), -1 }, "recurring_trial"},
		{"empty attribute name", func(p *ChargeParams) { p.Attributes = map[string]string{"": "x"} }, "attr_"},
		{"attribute name with brackets", func(p *ChargeParams) { p.Attributes = map[string]string{"realm[0]": "x"} }, "attr_realm[0]"},
	}
	testRejectedLocally(t, chargeWith, append(edited(validCharge, tests), rejectCase[ChargeParams]{"nil params", nil, "user"}), nil)
}

func TestTokenize_InvalidParamsAreRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []editCase[TokenizeParams]{
		{"number missing", func(p *TokenizeParams) { p.Number = CardNumber{} }, "number"},
		{"number with dashes", func(p *TokenizeParams) { p.Number = NewCardNumber("4242-4242-4242-4242") }, "number"},
		{"number fails Luhn", func(p *TokenizeParams) { p.Number = NewCardNumber("4000000000003221") }, "number"},
		{"month missing", func(p *TokenizeParams) { p.Expiry = NewExpiry(0, 2030) }, "expiration_month"},
		{"year two digits", func(p *TokenizeParams) { p.Expiry = NewExpiry(12, 30) }, "expiration_year"},
		{"year missing", func(p *TokenizeParams) { p.Expiry = NewExpiry(12, 0) }, "expiration_year"},
		{"security code missing", func(p *TokenizeParams) { p.SecurityCode = SecurityCode{} }, "security_code"},
		{"security code two digits", func(p *TokenizeParams) { p.SecurityCode = NewSecurityCode("12") }, "security_code"},
	}
	testRejectedLocally(t, tokenizeWith, append(edited(validTokenize, tests), rejectCase[TokenizeParams]{"nil params", nil, "number"}), nil)
}

func chargeWith(p *ChargeParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Cards.Charge(context.Background(), p)) }
}

// chargeSent charges p against the extended form's answer and returns the
// one request sent.
func chargeSent(t *testing.T, p *ChargeParams) recorded {
	t.Helper()
	return requestSent(t, http.MethodPost, "card/process", "card_process_extended.json", chargeWith(p))
}

func tokenizeWith(p *TokenizeParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Cards.Tokenize(context.Background(), p)) }
}

func TestAuthenticate_SendsPaResAndMDSignedAndDecodes(t *testing.T) {
	t.Parallel()
	pay, r := exchange(t, http.MethodPost, "card/authenticate", "card_authenticate.json", func(c *Client) (*Payment, error) {
		return c.Cards.Authenticate(context.Background(), &AuthenticateParams{
			PaRes: NewACSData("eJzVWFmTo7gS/iuOno+KKSHA2GfL0yEWYx+nM+0kL0kRmsPr+Fp/+ii8Cg=="),
			MD:    NewACSData("NDYxMTY4NjAxODQyNzM4Nzk1MTpjdXN0LTg4NDE="),
		})
	})
	requireSignedFields(t, r, map[string]string{
		"PaRes": "eJzVWFmTo7gS/iuOno+KKSHA2GfL0yEWYx+nM+0kL0kRmsPr+Fp/+ii8Cg==",
		"MD":    "NDYxMTY4NjAxODQyNzM4Nzk1MTpjdXN0LTg4NDE=",
	})

	assert.Equal(t, ID(4611686018427387951), pay.ID)
	assert.True(t, pay.Success)
	require.NotNil(t, pay.Card)
	assert.Equal(t, "3220", pay.Card.LastFour)
	assert.Equal(t, "c41e8a2f6b0d4f9a8e3c5b7d1f2a6e90", pay.PermanentToken)
	require.NotNil(t, pay.Recurring)
	assert.Equal(t, 7, pay.Recurring.Frequency)
	assert.True(t, pay.Recurring.EndsAt.Equal(time.Date(2027, 5, 22, 2, 17, 30, 0, time.UTC)))
	assert.False(t, pay.NeedsAuthentication())
}

func TestAuthenticate_ResponseWithoutIDIsAnError(t *testing.T) {
	t.Parallel()
	requireMalformedAnswer(t, http.MethodPost, "card/authenticate", httpmock.NewStringResponder(200, `{"success":true}`), "id",
		authenticateWith(&AuthenticateParams{PaRes: NewACSData("x"), MD: NewACSData("y")}))
}

func TestAuthenticate_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	authenticate := authenticateWith(&AuthenticateParams{PaRes: NewACSData("x"), MD: NewACSData("y")})
	testGatewayErrors(t, http.MethodPost, "card/authenticate", authenticate, []gatewayErrorCase{
		{"", "error_merchant_data_missing.json", ErrMerchantDataMissing},
		{"", "error_transaction_completed.json", ErrTransactionCompleted},
	})
}

func TestAuthenticate_InvalidParamsAreRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	testRejectedLocally(t, authenticateWith, []rejectCase[AuthenticateParams]{
		{"nil params", nil, "PaRes"},
		{"PaRes missing", &AuthenticateParams{MD: NewACSData("y")}, "PaRes"},
		{"MD missing", &AuthenticateParams{PaRes: NewACSData("x")}, "MD"},
	}, nil)
}

func authenticateWith(p *AuthenticateParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Cards.Authenticate(context.Background(), p)) }
}

func TestChargeRecurring_SendsFieldsSignedAndDecodesBothForms(t *testing.T) {
	t.Parallel()
	for _, form := range []Form{FormExtended, FormBasic} {
		t.Run(form.String(), func(t *testing.T) {
			pay, r := exchange(t, http.MethodPost, "card/processRecurring", "card_process_recurring_"+form.String()+".json", func(c *Client) (*Payment, error) {
				return c.Cards.ChargeRecurring(context.Background(), &ChargeRecurringParams{
					User:        "100452",
					Price:       decimal.RequireFromString("9.99"),
					Currency:    "EUR",
					OrderID:     "sub-100452-2026-12",
					Description: "Monthly plan, December",
				})
			}, WithForm(form))
			requireSignedFields(t, r, map[string]string{
				"user":        "100452",
				"price":       "9.99",
				"currency":    "EUR",
				"order_id":    "sub-100452-2026-12",
				"description": "Monthly plan, December",
			})

			assert.Equal(t, ID(4611686018427388203), pay.ID)
			assert.True(t, pay.Success)
			require.NotNil(t, pay.Card)
			assert.Equal(t, "4242", pay.Card.LastFour)
			assert.False(t, pay.NeedsAuthentication())
			if form == FormExtended {
				assert.Equal(t, ID(4611686018427387913), pay.ReferenceID)
				assert.Equal(t, StatusCompleted, pay.Status)
				assert.Equal(t, "0.2997", pay.Fee.String())
				assert.Equal(t, "sub-100452-2026-12", pay.OrderID)
				require.NotNil(t, pay.User)
				assert.Equal(t, UserID("100452"), pay.User.ID)
			} else {
				assert.Empty(t, pay.Status)
				assert.Nil(t, pay.User)
			}
		})
	}
}

func TestChargeRecurring_GatewayErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	chargeRecurring := chargeRecurringWith(validChargeRecurring())
	testGatewayErrors(t, http.MethodPost, "card/processRecurring", chargeRecurring, []gatewayErrorCase{
		{"TooSoonIsErrRecurringTooFrequent", "error_recurring_too_frequent.json", ErrRecurringTooFrequent},
		{"NotSubscribedIsErrRecurringDisabled", "error_recurring_disabled.json", ErrRecurringDisabled},
		{"EndedIsErrRecurringExpired", "error_recurring_expired.json", ErrRecurringExpired},
		{"UnknownUserIsErrUserNotFound", "error_user_not_found.json", ErrUserNotFound},
		{"NotCreatedIsErrRecurringNotCreated", "error_recurring_not_created.json", ErrRecurringNotCreated},
	})
}

func TestChargeRecurring_InvalidParamsAreRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	testRejectedLocally(t, chargeRecurringWith, []rejectCase[ChargeRecurringParams]{
		{"nil params", nil, "user"},
		{"user missing", edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.User = "" }), "user"},
		{"price missing", edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.Price = decimal.Decimal{} }), "price"},
		{"currency missing", edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.Currency = "" }), "currency"},
		{"currency not ISO", edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.Currency = "E1R" }), "currency"},
		{"order id over 64", edit(validChargeRecurring(), func(p *ChargeRecurringParams) { p.OrderID = strings.Repeat("9", 65) }), "order_id"},
	}, nil)
}

func chargeRecurringWith(p *ChargeRecurringParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Cards.ChargeRecurring(context.Background(), p)) }
}

func TestCharge_LimitsAreInclusive(t *testing.T) {
	t.Parallel()
	// 21 characters of holder and 64 of order id are allowed.
	p := validCharge()
	p.CardToken = CardToken{}
	p.Card = &CardDetails{Number: NewCardNumber(visa3DS), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("123"), Holder: strings.Repeat("Ü", MaxCardholderLength)}
	p.OrderID = strings.Repeat("o", MaxOrderIDLength)
	r := chargeSent(t, p)
	assert.Equal(t, strings.Repeat("Ü", 21), r.Params.Get("card[holder]"))
	assert.Len(t, r.Params.Get("order_id"), 64)
}

func TestCharge_UserObjectNeedsOnlyTheIdentifier(t *testing.T) {
	t.Parallel()
	p := validCharge()
	p.User = ""
	p.UserDetails = &UserDetails{Identifier: "cust-8841"}
	r := chargeSent(t, p)
	assert.Equal(t, "cust-8841", r.Params.Get("user[identifier]"))
	for k := range r.Params {
		assert.False(t, k != "user[identifier]" && strings.HasPrefix(k, "user"), "unexpected %s", k)
	}
}
