package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/cardnum"
)

// The answers below are the ones the production gateway really gives, not
// only the spec's tables (DESIGN: Decoding, Tolerant reader).

var cardTypeZero = PayoutType{ID: 0, Key: PayoutTypeCreditCard, Label: "Bank card"}

func TestPayoutTypes_IDZeroIsAType(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"payout_types_from_zero.json", "payout_types_from_zero_strings.json"} {
		t.Run(name, func(t *testing.T) {
			c, _ := stubFixture(t, http.MethodGet, "payout-types", 200, name)
			types, err := c.Payouts.Types(context.Background())
			require.NoError(t, err)
			require.Equal(t, cardTypeZero, types[0])
			require.True(t, types[0].IsCard())
			require.Equal(t, PayoutType{ID: 1, Key: "SEPA", Label: "SEPA transfer"}, types[1])
		})
	}
}

func TestPayoutParameters_TypeZeroSendsTheTypeAndOnlyTheBIN(t *testing.T) {
	t.Parallel()
	controls, r := exchange(t, http.MethodGet, "payout-parameters", "payout_parameters_card_type_zero.json", func(c *Client) ([]PayoutParameter, error) {
		return c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: cardTypeZero, Account: NewAccountNumber(payoutTestCard), Currency: "EUR"})
	})
	require.Equal(t, "0", r.Params.Get("type"))
	require.Equal(t, string(payoutTestCard)[:6], r.Params.Get("account"))
	require.Equal(t, []bool{true, true, false}, []bool{controls[0].Required, controls[1].Required, controls[2].Required})
}

func TestPayoutCreate_TypeZero(t *testing.T) {
	t.Parallel()
	po, r := exchange(t, http.MethodPost, "payout", "payout.json", func(c *Client) (*Payout, error) {
		return c.Payouts.Create(context.Background(), &PayoutParams{Type: cardTypeZero, Account: NewAccountNumber(payoutTestCard),
			Amount: decimal.RequireFromString("10.00"), Currency: "EUR", OrderID: "po-1", CardExpirationDate: "12/30"})
	})
	require.Equal(t, ID(9007199254740995555), po.ID)
	require.Equal(t, "0", r.Params.Get("type"))
}

func TestPayoutParams_SetAndCheckRequiredTakeTypeZero(t *testing.T) {
	t.Parallel()
	var controls []PayoutParameter
	require.NoError(t, json.Unmarshal(fixture(t, "payout_parameters_card_type_zero.json"), &controls))
	p := PayoutParams{Type: PayoutType{ID: 5, Key: "SEPA"}, Account: NewAccountNumber(payoutTestCard), Amount: decimal.RequireFromString("10"), Currency: "EUR"}
	p.Set("type", "0")
	p.Set("cardExpirationDate", "12/30")
	require.Equal(t, 0, p.Type.ID)
	require.Nil(t, p.Extra, "type is a field, not an extra parameter")
	require.NoError(t, p.CheckRequired(controls))
	p.Type.Key = PayoutTypeCreditCard
	require.NoError(t, p.validate(FormExtended))
}

func TestPayoutType_NoneAtAllIsStillRequired(t *testing.T) {
	t.Parallel()
	requireRejectedLocally(t, "type", func(c *Client) error {
		return errOf(c.Payouts.Create(context.Background(), &PayoutParams{Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.NewFromInt(1), Currency: "EUR"}))
	})
}

// spellingPair is one field the gateway names in snake or camel case.
type spellingPair struct {
	snake, camel string
	value        string // JSON
	got          func(st *TransactionStatus, tx *Transaction) (any, any)
	want         any
}

var spellingPairs = []spellingPair{
	{"order_id", "orderId", `"ord-7"`, func(st *TransactionStatus, tx *Transaction) (any, any) { return st.OrderID, tx.OrderID }, "ord-7"},
	{"original_status", "originalStatus", `"completed"`, func(st *TransactionStatus, tx *Transaction) (any, any) { return st.OriginalStatus, tx.OriginalStatus }, StatusCompleted},
	{"created_at", "createdAt", `"2026-03-14T09:20:01+0000"`, func(st *TransactionStatus, tx *Transaction) (any, any) { return st.CreatedAt.UTC(), tx.CreatedAt.UTC() },
		time.Date(2026, 3, 14, 9, 20, 1, 0, time.UTC)},
	{"updated_at", "updatedAt", `1773480003`, func(st *TransactionStatus, tx *Transaction) (any, any) { return st.UpdatedAt.UTC(), tx.UpdatedAt.UTC() },
		time.Date(2026, 3, 14, 9, 20, 3, 0, time.UTC)},
	{"reference_id", "referenceId", `"9007199254740991001"`, func(st *TransactionStatus, tx *Transaction) (any, any) { return st.ReferenceID, tx.ReferenceID }, ID(9007199254740991001)},
}

func TestTransactionStatusAndTransaction_DecodeEitherSpelling(t *testing.T) {
	t.Parallel()
	for _, pair := range spellingPairs {
		for _, key := range []string{pair.snake, pair.camel} {
			t.Run(key, func(t *testing.T) {
				body := `{"id":"9007199254740993123","status":"refunded","type":"payment",` + `"` + key + `":` + pair.value + `}`
				c, mock := newMockClient(t)
				record(t, mock, http.MethodGet, "transaction/status", httpmock.NewStringResponder(200, body))
				record(t, mock, http.MethodGet, "transactions/9007199254740993123", httpmock.NewStringResponder(200, body))
				st, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 9007199254740993123})
				require.NoError(t, err)
				tx, err := c.Transactions.Get(context.Background(), 9007199254740993123)
				require.NoError(t, err)
				fromStatus, fromTx := pair.got(st, tx)
				require.Equal(t, pair.want, fromStatus, "transaction/status")
				require.Equal(t, pair.want, fromTx, "transactions/{id}")
				require.Empty(t, st.Warnings)
			})
		}
	}
}

func TestTransactionStatus_CamelCaseAnswer(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transaction/status", 200, "transaction_status_camel.json")
	st, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{OrderID: "ord-2026-0042"})
	require.NoError(t, err)
	require.Equal(t, ID(9007199254740993123), st.ID)
	require.Equal(t, "ord-2026-0042", st.OrderID)
	require.Equal(t, ID(9007199254740991001), st.ReferenceID)
	require.Equal(t, "card", st.Method)
	require.Equal(t, StatusRefunded, st.Status)
	require.Equal(t, StatusCompleted, st.OriginalStatus)
	require.True(t, st.CreatedAt.Equal(time.Date(2026, 3, 14, 9, 20, 1, 0, time.UTC)), "%v", st.CreatedAt)
	require.True(t, st.UpdatedAt.Equal(time.Date(2026, 3, 14, 9, 20, 3, 0, time.UTC)), "%v", st.UpdatedAt)
	require.Equal(t, UserID("31337"), st.User.ID)
	require.Equal(t, "customer-8812", st.User.Identifier)
	require.Empty(t, st.Warnings)
}

func TestTransaction_SnakeCaseAnswer(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transactions/9007199254740993123", 200, "transactions_by_id_snake.json")
	tx, err := c.Transactions.Get(context.Background(), 9007199254740993123)
	require.NoError(t, err)
	require.Equal(t, "ord-2026-0042", tx.OrderID)
	require.Equal(t, ID(9007199254740991001), tx.ReferenceID)
	require.Equal(t, StatusCompleted, tx.OriginalStatus)
	require.True(t, tx.CreatedAt.Equal(time.Date(2026, 3, 14, 9, 20, 1, 0, time.UTC)), "%v", tx.CreatedAt)
	require.True(t, tx.UpdatedAt.Equal(time.Date(2026, 3, 14, 9, 20, 3, 0, time.UTC)), "%v", tx.UpdatedAt)
	require.Equal(t, "Jane Roe", tx.User.DisplayName)
	require.Equal(t, "4242", tx.Card.LastFour)
	require.Equal(t, 12, tx.Card.ExpirationMonth)
	require.Empty(t, tx.Warnings)
}

func TestCharge_DatesAsPHPWritesThem(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "card/process", 200, "card_process_php_dates.json")
	p, err := c.Cards.Charge(context.Background(), validCharge())
	require.NoError(t, err)
	require.Empty(t, p.Warnings)
	require.True(t, p.CreatedAt.Equal(time.Date(2026, 11, 22, 2, 14, 7, 0, time.UTC)), "+0000: %v", p.CreatedAt)
	require.True(t, p.UpdatedAt.Equal(time.Date(2026, 11, 22, 2, 14, 9, 250e6, time.UTC)), "+0300 with a fraction: %v", p.UpdatedAt)
	require.True(t, p.Card.ExpiresAt.Equal(time.Date(2030, 12, 31, 23, 59, 59, 0, time.UTC)), "Unix seconds: %v", p.Card.ExpiresAt)
	require.True(t, p.Recurring.EndsAt.Equal(time.Date(2027, 11, 22, 2, 14, 9, 0, time.UTC)), "compact: %v", p.Recurring.EndsAt)
	require.Equal(t, 30, p.Recurring.Frequency)
}

func TestCharge_UnreadableInformationalFieldsDoNotFailTheCharge(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, _ := stubFixture(t, http.MethodPost, "card/process", 200, "card_process_unreadable_informational.json", WithLogger(logger))
	p, err := c.Cards.Charge(context.Background(), validCharge())
	require.NoError(t, err, "the charge went through; unreadable details must not make it look unknown")
	require.True(t, p.Success)
	require.True(t, p.Completed())
	require.Equal(t, ID(4611686018427387913), p.ID)
	require.Equal(t, decimal.RequireFromString("24.90"), p.Price)

	var fields []string
	for _, w := range p.Warnings {
		fields = append(fields, w.Field)
		require.NotEmpty(t, w.Problem)
	}
	want := []string{"fee", "createdAt", "user.phone", "card.expirationMonth", "recurring.frequency"}
	require.ElementsMatch(t, want, fields)
	require.True(t, p.Fee.IsZero())
	require.True(t, p.CreatedAt.IsZero())
	require.Equal(t, 0, p.Card.ExpirationMonth)
	require.Equal(t, 2030, p.Card.ExpirationYear, "the rest of the card is read")
	require.Equal(t, "cust-8841", p.User.Identifier, "the rest of the user is read")

	var records []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(line, &rec))
		records = append(records, rec)
	}
	require.Len(t, records, len(want), "one warning record per unreadable field")
	for _, rec := range records {
		require.Equal(t, "WARN", rec["level"])
		require.Equal(t, "card/process", rec["path"])
		require.Contains(t, want, rec["field"])
	}
	require.NotContains(t, logs.String(), "4915123456789", "values are never logged")
	require.NotContains(t, logs.String(), "12/30")
}

func TestCharge_AnObjectThatIsNotOneStaysNil(t *testing.T) {
	t.Parallel()
	body := editJSON(t, fixture(t, "card_process_extended.json"), "user", "100452")
	c, _ := stubEndpoint(t, http.MethodPost, "card/process", httpmock.NewBytesResponder(200, body))
	p, err := c.Cards.Charge(context.Background(), validCharge())
	require.NoError(t, err)
	require.Nil(t, p.User)
	require.Equal(t, []DecodeWarning{{Field: "user", Problem: "is not a JSON object"}}, p.Warnings)
}

func TestCharge_EssentialFieldsStillFail(t *testing.T) {
	t.Parallel()
	good := fixture(t, "card_process_unreadable_informational.json")
	for field, value := range map[string]string{"id": `"4611686018427387913x"`, "success": `"maybe"`, "status": `{"s":1}`, "acs": `"https://acs.example"`} {
		t.Run(field, func(t *testing.T) {
			err := requireMalformedAnswer(t, http.MethodPost, "card/process", httpmock.NewBytesResponder(200, editJSON(t, good, field, json.RawMessage(value))), field,
				chargeWith(validCharge()))
			require.ErrorIs(t, err, ErrOutcomeUnknown)
		})
	}
}

func TestError_OnlyTheCodeIsEssential(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodPost, "card/process", httpmock.NewStringResponder(403,
		`{"error":{"code":"40305","message":{"en":"Card token already used"}}}`))
	_, err := c.Cards.Charge(context.Background(), validCharge())
	require.ErrorIs(t, err, ErrCardTokenUsed, "an unreadable message does not hide the code")
	require.NotErrorIs(t, err, ErrOutcomeUnknown)
}

func TestDecodeWarnings_ReachCallsWithoutAStructResult(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "payout-types", httpmock.NewStringResponder(200,
		`{"success":true,"types":[{"id":0,"key":"CREDIT_CARD","label":{"en":"Bank card"}}]}`))
	var warnings []DecodeWarning
	types, err := c.Payouts.Types(context.Background(), WithDecodeWarnings(&warnings))
	require.NoError(t, err)
	require.Equal(t, PayoutType{ID: 0, Key: PayoutTypeCreditCard}, types[0])
	require.Equal(t, []DecodeWarning{{Field: "types[0].label", Problem: "cannot be read as string"}}, warnings)
}

func TestCreate_NonNumericIDKeepsTheRedirect(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "transaction/create", 200, "transaction_create_string_id.json", WithCheckoutURL("https://checkout.test"))
	ap, err := c.Transactions.Create(context.Background(), validAlternativePayment())
	require.NoError(t, err)
	require.Equal(t, "pp-5f3c9a1b/77", ap.RawID)
	require.Zero(t, ap.ID, "not a transaction id the look-ups take")
	require.Equal(t, "https://checkout.test/confirm/pp-5f3c9a1b%2F77/", ap.RedirectURL)
	require.Equal(t, StatusOpened, ap.Status)
	require.True(t, decimal.RequireFromString("30").Equal(ap.Amount), "%v", ap.Amount)

	for _, name := range []string{"transaction_create.json", "transaction_create_numeric_id.json"} {
		c, _ := stubFixture(t, http.MethodPost, "transaction/create", 200, name)
		ap, err := c.Transactions.Create(context.Background(), validAlternativePayment())
		require.NoError(t, err, name)
		require.Equal(t, ap.RawID, ap.ID.String(), name)
		require.Equal(t, testBaseURL+"/confirm/"+ap.RawID+"/", ap.RedirectURL, name)
	}
}

func TestReverse_SuccessFalseWithACompletedRefundIsReported(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "transaction/reverse", 200, "transaction_reverse_unsuccessful_refund.json")
	p, err := c.Transactions.Reverse(context.Background(), &ReverseParams{OrderID: "ord-2026-0042", Amount: decimal.RequireFromString("25.50")})
	require.NoError(t, err, "a completed refund transaction is not 'nothing happened'")
	require.False(t, p.Success)
	require.Equal(t, TypeRefund, p.Type)
	require.Equal(t, StatusCompleted, p.Status)
	require.Equal(t, ID(9007199254740993777), p.ID)

	for _, body := range []string{`{"success":false}`, `{"success":false,"id":1,"type":"refund","status":"failed"}`} {
		c, _ := stubEndpoint(t, http.MethodPost, "transaction/reverse", httpmock.NewStringResponder(200, body))
		_, err := c.Transactions.Reverse(context.Background(), &ReverseParams{OrderID: "ord-2026-0042", Amount: decimal.RequireFromString("25.50")})
		require.ErrorIs(t, err, ErrDeclined, body)
	}
}

func TestResolve_UserIDZeroIsAnID(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodPost, "user/resolve", httpmock.NewStringResponder(200, `{"id":0}`))
	id, err := c.Users.Resolve(context.Background(), &ResolveUserParams{Identifier: "cust-1", IP: "203.0.113.7"})
	require.NoError(t, err)
	require.Equal(t, UserID("0"), id)
}

func TestCharge_VerifyCardWithPriceZero(t *testing.T) {
	t.Parallel()
	p := validCharge()
	p.VerifyCard, p.Price = true, decimal.Zero
	r := chargeSent(t, p)
	require.Equal(t, "0", r.Params.Get("price"))
	require.Equal(t, "1", r.Params.Get("verify_card"))

	p.VerifyCard = false
	requireRejectedLocally(t, "price", func(c *Client) error { return errOf(c.Cards.Charge(context.Background(), p)) })
}

// TestValidation_OnlyTheRulesTheSpecStates lists inputs the SDK used to
// refuse by rules the spec does not state: each now goes to the gateway,
// which is the judge.
func TestValidation_OnlyTheRulesTheSpecStates(t *testing.T) {
	t.Parallel()
	charge := func(change func(*ChargeParams)) validator { return edit(validCharge(), change) }
	alt := func(change func(*AlternativeCreateParams)) validator { return edit(validAlternativePayment(), change) }
	withUser := func(change func(*UserDetails)) validator {
		return charge(func(p *ChargeParams) {
			p.User, p.UserDetails = "", &UserDetails{Identifier: "cust-1"}
			change(p.UserDetails)
		})
	}
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	tests := map[string]validator{
		"resolve ip not one address":       &ResolveUserParams{Identifier: "cust-1", IP: "203.0.113.7, 10.0.0.1"},
		"resolve e-mail without @":         &ResolveUserParams{Identifier: "cust-1", IP: "203.0.113.7", Email: "jane.doe"},
		"user object ip a host name":       withUser(func(u *UserDetails) { u.IP = "localhost" }),
		"user object e-mail odd":           withUser(func(u *UserDetails) { u.Email = "@example.com" }),
		"create ip not an address":         alt(func(p *AlternativeCreateParams) { p.IP = "300.1.1.1" }),
		"create e-mail without @":          alt(func(p *AlternativeCreateParams) { p.Email = "jane.example.com" }),
		"create success_url relative":      alt(func(p *AlternativeCreateParams) { p.SuccessURL = "/paid" }),
		"create fail_url not http":         alt(func(p *AlternativeCreateParams) { p.FailURL = "myapp://payment/failed" }),
		"charge acs_return_url relative":   charge(func(p *ChargeParams) { p.ACSReturnURL = "/3ds/return" }),
		"charge currency in lowercase":     charge(func(p *ChargeParams) { p.Currency = "eur" }),
		"charge interval without the flag": charge(func(p *ChargeParams) { p.RecurringInterval = Days(30) }),
		"charge trial without the flag":    charge(func(p *ChargeParams) { p.RecurringTrial = 7 }),
		"card number of 8 digits":          &TokenizeParams{Number: NewCardNumber("42424242"), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("737")},
		"list range ending before it starts": &TransactionListParams{OrderID: "o",
			Created: TimeRange{From: day, To: day.Add(-time.Hour)}, Updated: TimeRange{From: day, To: day.Add(-time.Hour)}},
		"list page and limit negative":   &TransactionListParams{OrderID: "o", Page: -1, Limit: -1},
		"change recurring currency only": &ChangeRecurringParams{User: "100452", Currency: "EUR"},
		"payout without account for a non-card type": &PayoutParams{Type: PayoutType{ID: 4, Key: "SEPA"},
			Amount: decimal.NewFromInt(10), Currency: "EUR"},
	}
	require.True(t, cardnum.LuhnValid("42424242"), "the 8-digit number passes Luhn, so only the length rule refused it")
	for name, p := range tests {
		require.NoError(t, p.validate(FormExtended), name)
	}
}

func TestCallback_EmptyIDAndStatusAreValid(t *testing.T) {
	t.Parallel()
	signer := newTestCallbackSigner(testSecret, FormExtended)
	cb, err := testVerifier(t).ParseValues(signer.Values("", url.Values{"id": {""}}))
	require.NoError(t, err, `the spec: "all parameters are present but may be empty"`)
	require.Zero(t, cb.ID)
	require.Empty(t, cb.Status)

	v := signer.Values(callback.Completed, nil)
	v.Del("status")
	v.Set(SignatureParam, Sign(v, testSecret))
	_, err = testVerifier(t).ParseValues(v)
	require.ErrorIs(t, err, callback.ErrMalformed, "an absent status is not an empty one")
}

// FuzzChargeInformationalField sets one informational field of a real
// charge answer (any field but id, success, status and acs, at any depth)
// to arbitrary JSON, or to an arbitrary string when the input is not JSON:
// the charge must still succeed with its id, success and status.
func FuzzChargeInformationalField(f *testing.F) {
	good := fixture(f, "card_process_extended.json")
	paths := []string{"orderId", "referenceId", "price", "fee", "currency", "type", "createdAt", "updatedAt",
		"user", "user.id", "user.identifier", "user.phone", "card", "card.lastFour", "card.expirationMonth",
		"card.expirationYear", "card.expiresAt", "card.holder", "permanentToken", "recurring", "recurring.frequency",
		"recurring.endsAt", "unknownField"}
	f.Add(uint8(3), []byte(`{"amount":"0.7470"}`))
	f.Add(uint8(6), []byte(`"22/11/2026"`))
	f.Add(uint8(14), []byte(`"12/30"`))
	c, err := NewClient(testProject, testSecret, WithBaseURL(testBaseURL))
	if err != nil {
		f.Fatal(err)
	}
	ep := endpoints[epCharge]
	f.Fuzz(func(t *testing.T, which uint8, value []byte) {
		path := paths[int(which)%len(paths)]
		raw := json.RawMessage(value)
		if !json.Valid(value) || len(value) > 4096 || bytes.Count(value, []byte("[")) > 100 || bytes.Count(value, []byte("{")) > 100 {
			raw, _ = json.Marshal(strings.ToValidUTF8(string(value), ""))
		}
		if verifyBody(raw) != nil {
			return // a body-level guard (JSON null, a number of over 1000 digits), not a field
		}
		var out Payment
		warnings, err := c.decode(ep, http.StatusOK, editJSON(t, good, path, raw), &out)
		if err != nil {
			t.Fatalf("%s = %s failed the charge: %v", path, raw, err)
		}
		if out.ID != 4611686018427387913 || !out.Success || out.Status != StatusCompleted {
			t.Fatalf("%s = %s changed the outcome: %+v", path, raw, out)
		}
		for _, w := range warnings {
			if !strings.HasPrefix(w.Field, strings.Split(path, ".")[0]) {
				t.Fatalf("%s = %s warned about %s", path, raw, w.Field)
			}
		}
	})
}

func TestAll_TransactionIDZeroStillDetectsARepeatedPage(t *testing.T) {
	t.Parallel()
	c, mock := newMockClient(t)
	calls := 0
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transactions", func(*http.Request) (*http.Response, error) {
		if calls++; calls > 3 {
			return httpmock.NewStringResponse(500, "the iteration should have stopped"), nil
		}
		return httpmock.NewStringResponse(200, `{"transactions":[{"id":0,"status":"completed","type":"payment"},{"id":1,"status":"failed","type":"payment"}]}`), nil
	})
	var ids []ID
	var err error
	for tx, e := range c.Transactions.All(context.Background(), &TransactionListParams{OrderID: "ord-1", Limit: 2}) {
		if e != nil {
			err = e
			break
		}
		ids = append(ids, tx.ID)
	}
	require.ErrorContains(t, err, "page 2 equal to the page before it")
	require.Equal(t, []ID{0, 1}, ids)
	require.Equal(t, 2, calls)
}
