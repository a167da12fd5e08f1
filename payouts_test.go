package paygate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/paygate/paygate-go/callback"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const payoutTestCard = "4242424242424242"

var (
	cardPayoutType = PayoutType{ID: 1, Key: PayoutTypeCreditCard, Label: "Bank card"}
	sepaPayoutType = PayoutType{ID: 4, Key: "SEPA", Label: "SEPA transfer"}
)

func validSEPAPayout() *PayoutParams {
	return &PayoutParams{
		Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.RequireFromString("150.00"), Currency: "EUR",
		OrderID: "payout-0091", BeneficiaryFirstName: "Max", BeneficiaryLastName: "Mustermann", ReceiverBankBIC: "COBADEFFXXX",
	}
}

func TestPayoutTypes_UnsignedAndDecoded(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodGet, "payout-types", "payout_types.json", func(c *Client) ([]PayoutType, error) {
		return c.Payouts.Types(context.Background())
	})
	requireUnsigned(t, r)
	requireFields(t, r, map[string]string{})
	assert.Equal(t, []PayoutType{cardPayoutType, sepaPayoutType, {ID: 7, Key: "QIWI", Label: "QIWI Wallet"}}, got)
	assert.True(t, got[0].IsCard())
	assert.False(t, got[1].IsCard())
}

func TestPayoutTypes_AvailableInBasicForm(t *testing.T) {
	t.Parallel()
	requestSent(t, http.MethodGet, "payout-types", "payout_types.json", func(c *Client) error {
		return errOf(c.Payouts.Types(context.Background()))
	}, WithForm(FormBasic))
}

func TestPayoutTypes_SuccessFalseIsDeclinedAndMissingSuccessMalformed(t *testing.T) {
	t.Parallel()
	c, mock := newMockClient(t)
	record(t, mock, http.MethodGet, "payout-types", httpmock.NewStringResponder(200, `{"success":false,"types":[]}`))
	_, err := c.Payouts.Types(context.Background())
	require.ErrorIs(t, err, ErrDeclined)

	record(t, mock, http.MethodGet, "payout-types", httpmock.NewStringResponder(200, `{"types":[]}`))
	_, err = c.Payouts.Types(context.Background())
	requireResponseError(t, err, "success")
}

// An answer without its success flag, or one that says no while the payout
// is live, cannot be read as a refusal: the payout may have been made.
func TestPayoutCreate_UnclearAnswersAreUnknownOutcomesNotDeclines(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"no success flag":            `{"id":1000000000000000123,"status":"processing"}`,
		"empty object":               `{}`,
		"success false, live status": `{"success":false,"id":1000000000000000123,"status":"processing"}`,
		"success true without an id": `{"success":true,"status":"processing"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, rec := stubEndpoint(t, http.MethodPost, "payout", httpmock.NewStringResponder(200, body))
			_, err := c.Payouts.Create(context.Background(), &PayoutParams{
				Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.RequireFromString("10.00"),
				Currency: "EUR", OrderID: "payout-77",
			})
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.NotErrorIs(t, err, ErrDeclined)
			require.Len(t, rec.Requests(), 1)
		})
	}
	c, _ := stubEndpoint(t, http.MethodPost, "payout", httpmock.NewStringResponder(200, `{"success":false,"id":1000000000000000123,"status":"payout_failed"}`))
	_, err := c.Payouts.Create(context.Background(), &PayoutParams{
		Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.RequireFromString("10.00"), Currency: "EUR",
	})
	require.ErrorIs(t, err, ErrDeclined, "a refusal with a failure status is a decline")
}

func TestPayoutParameters_CardSendsOnlyTheBINUnsigned(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodGet, "payout-parameters", "payout_parameters_card.json", func(c *Client) ([]PayoutParameter, error) {
		return c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: cardPayoutType, Account: NewAccountNumber(payoutTestCard), Currency: "EUR"})
	})
	requireUnsigned(t, r)
	requireFields(t, r, map[string]string{"type": "1", "account": "424242", "currency": "EUR"})
	assert.NotContains(t, r.Raw, payoutTestCard)

	require.Len(t, got, 4)
	assert.Equal(t, PayoutParameter{Name: "firstName", Type: "text", Label: "First name", Required: true}, got[0])
	assert.False(t, got[2].Required)
}

func TestPayoutParameters_NonCardSendsTheWholeAccount(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodGet, "payout-parameters", "payout_parameters_sepa.json", func(c *Client) ([]PayoutParameter, error) {
		return c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Currency: "EUR"})
	})
	requireUnsigned(t, r)
	requireFields(t, r, map[string]string{"type": "4", "account": "DE89370400440532013000", "currency": "EUR"})

	require.Len(t, got, 5)
	assert.True(t, got[3].Required, "required 1 is true")
	assert.False(t, got[4].Required, `required "0" is false`)
}

func TestPayoutParameters_EmptyArray(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "payout-parameters", 200, "payout_parameters_empty.json")
	got, err := c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89"), Currency: "EUR"})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestPayoutParameters_Validation(t *testing.T) {
	t.Parallel()
	testRejectedLocally(t, payoutParametersWith, []rejectCase[PayoutParametersParams]{
		{"nil params", nil, "type"},
		{"type required", &PayoutParametersParams{Account: NewAccountNumber("DE89"), Currency: "EUR"}, "type"},
		{"account required", &PayoutParametersParams{Type: sepaPayoutType, Currency: "EUR"}, "account"},
		{"currency required", &PayoutParametersParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89")}, "currency"},
		{"currency format", &PayoutParametersParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89"), Currency: "EU"}, "currency"},
		{"card account shorter than a BIN", &PayoutParametersParams{Type: cardPayoutType, Account: NewAccountNumber("42424"), Currency: "EUR"}, "account"},
		{"card account not digits", &PayoutParametersParams{Type: cardPayoutType, Account: NewAccountNumber("4242 4242 4242 4242"), Currency: "EUR"}, "account"},
	}, func(t *testing.T, err error) {
		assert.NotContains(t, err.Error(), "4242 4242")
	})
}

func payoutParametersWith(p *PayoutParametersParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Payouts.Parameters(context.Background(), p)) }
}

func TestPayoutCreate_SendsEveryFieldSignedWithItsWireName(t *testing.T) {
	t.Parallel()
	p := &PayoutParams{
		Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.RequireFromString("150.00"), Currency: "EUR", OrderID: "payout-0091",
		FirstName: "Erika", LastName: "Mustermann", BirthDate: "12.08.1964", BirthPlace: "Berlin", Country: "DE",
		CountryOfCitizenship: "DE", City: "Berlin", Address: "Heidestr. 17", PostalCode: "51147",
		DocumentType: "passport", DocumentIssuer: "Stadt Koeln", DocumentSeries: "C01X", DocumentNumber: "00T47",
		DocumentIssuedAt: "01.02.2020", DocumentValidUntil: "31.01.2030",
		RemitterCardNumber: NewAccountNumber("5555555555554444"), RemitterCardToken: NewCardToken("tok_remitter"), RemitterCardExpirationMonth: "09",
		RemitterCardExpirationYear: "2031", RemitterPhone: "4915112345678",
		BeneficiaryFirstName: "Max", BeneficiaryLastName: "Mustermann", BeneficiaryLegalName: "Mustermann GmbH",
		BeneficiaryDocumentType: "id", BeneficiaryDocumentIssuer: "Stadt Bonn", BeneficiaryDocumentSeries: "L01X",
		BeneficiaryDocumentNumber: "00B12", BeneficiaryDocumentIssuedAt: "05.06.2019", BeneficiaryDocumentValidUntil: "04.06.2029",
		CardExpirationDate: "09/31", Description: "Marketplace payout", Phone: "4915112345679", CardHolder: "MAX MUSTERMANN",
		FullName: "Max Mustermann", ReceiverBankBIC: "COBADEFFXXX",
		Extra: map[string]string{"purposeCode": "SALA"},
	}
	got, r := exchange(t, http.MethodPost, "payout", "payout.json", func(c *Client) (*Payout, error) {
		return c.Payouts.Create(context.Background(), p)
	})
	requireSignedFields(t, r, map[string]string{
		"type": "4", "account": "DE89370400440532013000", "amount": "150.00", "currency": "EUR", "orderId": "payout-0091",
		"firstName": "Erika", "lastName": "Mustermann", "birthDate": "12.08.1964", "birthPlace": "Berlin", "country": "DE",
		"countryOfCitizenship": "DE", "city": "Berlin", "address": "Heidestr. 17", "postalCode": "51147",
		"documentType": "passport", "documentIssuer": "Stadt Koeln", "documentSeries": "C01X", "documentNumber": "00T47",
		"documentIssuedAt": "01.02.2020", "documentValidUntil": "31.01.2030",
		"remitterCardNumber": "5555555555554444", "remitterCardToken": "tok_remitter", "remitterCardExpirationMonth": "09",
		"remitterCardExpirationYear": "2031", "remitterPhone": "4915112345678",
		"beneficiaryFirstName": "Max", "beneficiaryLastName": "Mustermann", "beneficiaryLegalName": "Mustermann GmbH",
		"beneficiaryDocumentType": "id", "beneficiaryDocumentIssuer": "Stadt Bonn", "beneficiaryDocumentSeries": "L01X",
		"beneficiaryDocumentNumber": "00B12", "beneficiaryDocumentIssuedAt": "05.06.2019", "beneficiaryDocumentValidUntil": "04.06.2029",
		"cardExpirationDate": "09/31", "description": "Marketplace payout", "phone": "4915112345679", "cardHolder": "MAX MUSTERMANN",
		"fullName": "Max Mustermann", "receiverBankBIC": "COBADEFFXXX", "purposeCode": "SALA",
	})
	assert.Equal(t, &Payout{ID: 9007199254740995555, Success: true, Status: callback.Processing}, got)
}

func TestPayoutCreate_CardByToken(t *testing.T) {
	t.Parallel()
	r := requestSent(t, http.MethodPost, "payout", "payout.json", func(c *Client) error {
		return errOf(c.Payouts.Create(context.Background(), &PayoutParams{
			Type: cardPayoutType, CardToken: NewCardToken("tok_4f1c"), Amount: decimal.NewFromInt(20), Currency: "EUR", CardExpirationDate: "12/29",
		}))
	})
	requireFields(t, r, map[string]string{"type": "1", "cardToken": "tok_4f1c", "amount": "20", "currency": "EUR", "cardExpirationDate": "12/29"})
}

func TestPayoutCreate_SuccessFalseIsErrDeclined(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "payout", 200, "payout_declined.json")
	_, err := c.Payouts.Create(context.Background(), validSEPAPayout())
	require.ErrorIs(t, err, ErrDeclined)
	var de *DeclinedError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "payout_failed", de.Status)
	assert.Equal(t, `paygate: POST payout declined: the gateway answered success false with status "payout_failed"`, err.Error())
}

func TestPayoutCreate_MissingIDIsOutcomeUnknownWithOrderID(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodPost, "payout", httpmock.NewStringResponder(200, `{"success":true,"status":"processing"}`))
	_, err := c.Payouts.Create(context.Background(), validSEPAPayout())
	var ou *OutcomeUnknownError
	require.ErrorAs(t, err, &ou)
	assert.Equal(t, "payout-0091", ou.OrderID)
}

func TestPayoutCreate_GatewayErrorIsMatchedByCode(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "payout", 422, "error_gateway_misconfigured.json")
	_, err := c.Payouts.Create(context.Background(), validSEPAPayout())
	assert.ErrorIs(t, err, ErrGatewayMisconfigured)
}

func TestPayoutCreate_Validation(t *testing.T) {
	t.Parallel()
	tests := []editCase[PayoutParams]{
		{"type required", func(p *PayoutParams) { p.Type = PayoutType{} }, "type"},
		{"amount required", func(p *PayoutParams) { p.Amount = decimal.Zero }, "amount"},
		{"amount positive", func(p *PayoutParams) { p.Amount = decimal.NewFromInt(-5) }, "amount"},
		{"currency required", func(p *PayoutParams) { p.Currency = "" }, "currency"},
		{"currency format", func(p *PayoutParams) { p.Currency = "EURO" }, "currency"},
		{"order id at most 64", func(p *PayoutParams) { p.OrderID = strings.Repeat("o", 65) }, "orderId"},
		{"card token only for cards", func(p *PayoutParams) { p.CardToken = NewCardToken("tok") }, "cardToken"},
		{"card needs account or token", func(p *PayoutParams) { p.Type, p.Account = cardPayoutType, AccountNumber{} }, "account"},
		{"card account and token exclusive", func(p *PayoutParams) {
			p.Type, p.Account, p.CardToken = cardPayoutType, NewAccountNumber(payoutTestCard), NewCardToken("tok")
		}, "cardToken"},
		{"card account must pass Luhn", func(p *PayoutParams) { p.Type, p.Account = cardPayoutType, NewAccountNumber("4242424242424241") }, "account"},
		{"card expiration MM/YY", func(p *PayoutParams) { p.CardExpirationDate = "2031-09" }, "cardExpirationDate"},
		{"card expiration month", func(p *PayoutParams) { p.CardExpirationDate = "13/31" }, "cardExpirationDate"},
		{"document type passport or id", func(p *PayoutParams) { p.DocumentType = "licence" }, "documentType"},
		{"beneficiary document type passport or id", func(p *PayoutParams) { p.BeneficiaryDocumentType = "x" }, "beneficiaryDocumentType"},
		{"extra must not repeat a field", func(p *PayoutParams) { p.Extra = map[string]string{"firstName": "X"} }, "Extra[firstName]"},
		{"extra must not set the type", func(p *PayoutParams) { p.Extra = map[string]string{"type": "2"} }, "Extra[type]"},
		{"extra must not set the signature", func(p *PayoutParams) { p.Extra = map[string]string{"signature": "x"} }, "Extra[signature]"},
	}
	testRejectedLocally(t, payoutWith, edited(validSEPAPayout, tests), func(t *testing.T, err error) {
		assert.NotContains(t, err.Error(), "424242424242")
	})
}

func payoutWith(p *PayoutParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Payouts.Create(context.Background(), p)) }
}

func TestPayoutCreate_UntypedIDAcceptsEitherAccountOrToken(t *testing.T) {
	t.Parallel()
	p := validSEPAPayout()
	p.Type = PayoutType{ID: 9}
	assert.NoError(t, p.validate(FormExtended))
	p.Account, p.CardToken = AccountNumber{}, NewCardToken("tok")
	assert.NoError(t, p.validate(FormExtended))
}

func TestPayoutParams_CheckRequiredNamesEveryMissingParameter(t *testing.T) {
	t.Parallel()
	var controls []PayoutParameter
	require.NoError(t, json.Unmarshal(fixture(t, "payout_parameters_sepa.json"), &controls))

	p := &PayoutParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89370400440532013000"), Amount: decimal.NewFromInt(1), Currency: "EUR",
		BeneficiaryFirstName: "Max"}
	err := p.CheckRequired(controls)
	var me *MissingParametersError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"beneficiaryLastName", "receiverBankBIC", "purposeCode"}, me.Names)
	assert.Contains(t, err.Error(), "beneficiaryLastName, receiverBankBIC, purposeCode")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "beneficiaryLastName", ve.Field)

	p.BeneficiaryLastName, p.ReceiverBankBIC = "Mustermann", "COBADEFFXXX"
	p.Extra = map[string]string{"purposeCode": ""}
	require.ErrorAs(t, p.CheckRequired(controls), &me, "an empty value is missing")
	assert.Equal(t, []string{"purposeCode"}, me.Names)

	p.Extra["purposeCode"] = "SALA"
	assert.NoError(t, p.CheckRequired(controls))
}

func TestPayoutParams_CheckRequiredCountsCommonParameters(t *testing.T) {
	t.Parallel()
	controls := []PayoutParameter{{Name: "cardToken", Required: true}, {Name: "cardExpirationDate", Required: true}, {Name: "birthDate"}}
	p := &PayoutParams{Type: cardPayoutType, CardToken: NewCardToken("tok"), Amount: decimal.NewFromInt(1), Currency: "EUR", CardExpirationDate: "01/30"}
	assert.NoError(t, p.CheckRequired(controls))
}

func TestPayoutParams_NeverPrintsTheCardNumbers(t *testing.T) {
	t.Parallel()
	p := PayoutParams{Type: cardPayoutType, Account: NewAccountNumber(payoutTestCard), RemitterCardNumber: NewAccountNumber("5555555555554444"),
		Amount: decimal.NewFromInt(20), Currency: "EUR", Extra: map[string]string{"secretThing": "4000000000000002"}}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("payout", "params", p, "account", p.Account)
	outputs := []string{
		fmt.Sprint(p), fmt.Sprintf("%v %+v %#v %s", p, p, p, p), fmt.Sprintf("%v %+v %#v", &p, &p, &p),
		fmt.Sprintf("%v %#v %s %q %x", p.Account, p.Account, p.Account, p.Account, p.Account),
		fmt.Sprintf("%v %#v", p.RemitterCardNumber, p.RemitterCardNumber),
		logged.String(),
	}
	for _, out := range outputs {
		assert.NotContains(t, out, "424242424242")
		assert.NotContains(t, out, "555555555555")
		assert.NotContains(t, out, "400000000000")
	}
	assert.Contains(t, fmt.Sprint(p), "************4242")
}

func TestPayoutParams_ValidationErrorsNeverQuoteTheAccount(t *testing.T) {
	t.Parallel()
	p := &PayoutParams{Type: cardPayoutType, Account: NewAccountNumber("4242424242424241"), Amount: decimal.NewFromInt(1), Currency: "EUR"}
	err := p.validate(FormExtended)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "424242424242")
	assert.False(t, errors.Is(err, ErrDeclined))
}

func TestPayoutParams_CheckRequiredOnNilParamsNamesEveryRequiredParameter(t *testing.T) {
	t.Parallel()
	var p *PayoutParams
	var me *MissingParametersError
	require.ErrorAs(t, p.CheckRequired([]PayoutParameter{{Name: "firstName", Required: true}, {Name: "city"}}), &me)
	assert.Equal(t, []string{"firstName"}, me.Names)
}

func TestPayoutParameters_MalformedAnswersAreResponseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, field string }{
		{"object instead of array", `{"controls":[]}`, ""},
		{"required not a boolean", `[{"name":"firstName","type":"text","label":"First name","required":"maybe"}]`, ""},
		{"control without a name", `[{"type":"text","label":"First name","required":true}]`, "[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := stubEndpoint(t, http.MethodGet, "payout-parameters", httpmock.NewStringResponder(200, tt.body))
			_, err := c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: sepaPayoutType, Account: NewAccountNumber("DE89"), Currency: "EUR"})
			var re *ResponseError
			require.ErrorAs(t, err, &re)
			if tt.field != "" {
				assert.Equal(t, tt.field, re.Field)
			}
		})
	}
}

func TestPayoutParamsSet_FillsTheFieldOfThatNameElseExtra(t *testing.T) {
	t.Parallel()
	var p PayoutParams
	p.Set("firstName", "Jane")
	p.Set("cardHolder", "JANE DOE")
	p.Set("account", "4242424242424242")
	p.Set("purposeCode", "SALA")
	require.Equal(t, "Jane", p.FirstName)
	require.Equal(t, "JANE DOE", p.CardHolder)
	require.Equal(t, NewAccountNumber("4242424242424242"), p.Account)
	require.Equal(t, map[string]string{"purposeCode": "SALA"}, p.Extra)

	p.Set("amount", "10")
	require.True(t, p.Amount.IsZero(), "amount is not a string field")
	require.ErrorContains(t, p.checkExtra(), "Extra[amount]", "and is refused when sent through Extra")

	q := PayoutParams{Extra: map[string]string{"order_id": "other"}}
	require.ErrorContains(t, q.checkExtra(), "Extra[order_id]", "it would pass for the payout's order id")
}

func TestPayoutParameters_TheTypeDecidesWhetherOnlyTheBINGoesOut(t *testing.T) {
	t.Parallel()
	c, rec := stubFixture(t, http.MethodGet, "payout-parameters", 200, "payout_parameters_sepa.json")
	// A wallet number that happens to pass the Luhn check is not a card.
	const wallet = "79261234565"
	_, err := c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: PayoutType{ID: 7, Key: "QIWI"}, Account: NewAccountNumber(wallet), Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, wallet, rec.Only(t).Params.Get("account"), "sent whole: the type is not the card type")

	// Without its key the type cannot tell, so nothing is sent.
	_, err = c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: PayoutType{ID: 1}, Account: NewAccountNumber(payoutTestCard), Currency: "EUR"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "type", ve.Field)
	require.Len(t, rec.Requests(), 1)
}
