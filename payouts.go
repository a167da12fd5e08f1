package paygate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/paygate/paygate-go/internal/formenc"
)

// PayoutsService is the payouts resource group of the API. A payout takes
// three steps: pick a type from [PayoutsService.Types], ask
// [PayoutsService.Parameters] which further parameters that type, account
// and currency need, then [PayoutsService.Create] the payout with all of
// them ([PayoutParams.CheckRequired] checks them first).
type PayoutsService service

// PayoutTypeCreditCard is the key of the card payout type.
const PayoutTypeCreditCard = "CREDIT_CARD"

// PayoutType is a way of paying funds out, for example to a card
// (CREDIT_CARD) or by SEPA transfer.
//
// Pass a type as [PayoutsService.Types] returned it. Ids start at 0 (the
// production gateway numbers CREDIT_CARD 0), so a PayoutType with neither
// an ID nor a Key is taken for no type at all; a type built by hand with
// id 0 must carry its Key.
type PayoutType struct {
	// ID is what payout-parameters and payout take as type; 0 is a valid id.
	ID int `json:"id"`
	// Key names the type, for example CREDIT_CARD or SEPA.
	Key   string `json:"key"`
	Label string `json:"label"`
}

// IsCard reports whether the type pays out to a card (key CREDIT_CARD).
func (t PayoutType) IsCard() bool { return t.Key == PayoutTypeCreditCard }

// Types lists the payout types of the project (GET payout-types, sent
// unsigned like the gateway's own clients send it).
//
// success, and the id and key of every type, are essential: they must be
// present (0 and "" are values) or the call fails. A label that cannot be
// read is left empty and reported (see WithDecodeWarnings).
func (s *PayoutsService) Types(ctx context.Context, opts ...CallOption) ([]PayoutType, error) {
	out := new(payoutTypesResponse)
	ep := endpoints[epPayoutTypes]
	if err := s.client.do(ctx, ep, nil, out, opts); err != nil {
		return nil, err
	}
	if !*out.Success {
		return nil, ep.declined(0, "")
	}
	return out.Types, nil
}

// PayoutParametersParams asks which further parameters a payout needs.
type PayoutParametersParams struct {
	// Type is the payout type, as Types returned it: its ID is sent, and its
	// Key tells whether Account is a card number, so both are required.
	Type PayoutType
	// Account is the recipient account; required. For the card type
	// (CREDIT_CARD) the SDK sends only the BIN (the first 6 digits), as the
	// gateway requires, so the full card number can be passed here and
	// never leaves the machine. Any other type's account is sent whole,
	// whatever it looks like: the type decides, as the spec says.
	Account AccountNumber
	// Currency is an ISO 4217 code; required.
	Currency string
}

// PayoutParameter is a further parameter a payout needs: a control of the
// merchant's payout form.
type PayoutParameter struct {
	// Name is the parameter's name in the payout request, for example
	// firstName; see the fields of PayoutParams or put it in Extra.
	Name string `json:"name"`
	// Type is the data type of the control.
	Type     string `json:"type"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

// Parameters returns the further parameters a payout of the given type, to
// the given account, in the given currency needs (GET payout-parameters,
// sent unsigned like the gateway's own clients send it). For the card type
// only the BIN of Account is sent.
//
// The name and the required flag of every parameter are essential: the
// call fails when they are missing or unreadable. Type and label are
// informational (see WithDecodeWarnings).
func (s *PayoutsService) Parameters(ctx context.Context, p *PayoutParametersParams, opts ...CallOption) ([]PayoutParameter, error) {
	if p == nil {
		p = &PayoutParametersParams{}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	q := payoutParameterQuery{Type: p.Type.ID, Account: p.Account.get(), Currency: p.Currency}
	if p.Type.IsCard() {
		q.Account = q.Account[:binLength]
	}
	var out payoutParameterList
	ep := endpoints[epPayoutParameters]
	if err := s.client.do(ctx, ep, &q, &out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// PayoutParams creates a payout. Type, Amount and Currency are required.
// For a card type give either Account (the card number) or CardToken (a
// temporary card token). For any other type Account is usually required,
// as the spec says: payout-parameters and the gateway decide, so the SDK
// does not.
//
// The other fields are the further parameters the gateway may ask for
// (see [PayoutsService.Parameters]), with their wire names; parameters
// without a field here go in Extra, by the name payout-parameters returned.
//
// PayoutParams prints and logs without the account, the remitter's card
// number and Extra.
type PayoutParams struct {
	Type PayoutType `url:"-"`
	// Account is the recipient account, or the card number for a card
	// payout.
	Account AccountNumber `url:"account,omitempty"`
	// CardToken is a card token used instead of a card number in Account.
	CardToken CardToken `url:"cardToken,omitempty"`
	// Amount is greater than zero.
	Amount decimal.Decimal `url:"amount"`
	// Currency is an ISO 4217 code.
	Currency string `url:"currency"`
	// OrderID is the merchant order id (sent as orderId), at most 64
	// characters; give one, so that an unknown outcome can be reconciled.
	OrderID string `url:"orderId,omitempty"`

	// Remitter.
	FirstName string `url:"firstName,omitempty"`
	LastName  string `url:"lastName,omitempty"`
	// BirthDate is in the format d.m.Y, for example 31.12.1980.
	BirthDate string `url:"birthDate,omitempty"`
	// BirthPlace is listed by the gateway with the same d.m.Y note as
	// BirthDate; it is sent as given.
	BirthPlace           string `url:"birthPlace,omitempty"`
	Country              string `url:"country,omitempty"`
	CountryOfCitizenship string `url:"countryOfCitizenship,omitempty"`
	City                 string `url:"city,omitempty"`
	Address              string `url:"address,omitempty"`
	PostalCode           string `url:"postalCode,omitempty"`
	// DocumentType is passport or id.
	DocumentType       string `url:"documentType,omitempty"`
	DocumentIssuer     string `url:"documentIssuer,omitempty"`
	DocumentSeries     string `url:"documentSeries,omitempty"`
	DocumentNumber     string `url:"documentNumber,omitempty"`
	DocumentIssuedAt   string `url:"documentIssuedAt,omitempty"`
	DocumentValidUntil string `url:"documentValidUntil,omitempty"`
	// RemitterCardNumber is a full card number; it redacts itself.
	RemitterCardNumber          AccountNumber `url:"remitterCardNumber,omitempty"`
	RemitterCardToken           CardToken     `url:"remitterCardToken,omitempty"`
	RemitterCardExpirationMonth string        `url:"remitterCardExpirationMonth,omitempty"`
	RemitterCardExpirationYear  string        `url:"remitterCardExpirationYear,omitempty"`
	RemitterPhone               string        `url:"remitterPhone,omitempty"`

	// Beneficiary.
	BeneficiaryFirstName string `url:"beneficiaryFirstName,omitempty"`
	BeneficiaryLastName  string `url:"beneficiaryLastName,omitempty"`
	BeneficiaryLegalName string `url:"beneficiaryLegalName,omitempty"`
	// BeneficiaryDocumentType is passport or id.
	BeneficiaryDocumentType       string `url:"beneficiaryDocumentType,omitempty"`
	BeneficiaryDocumentIssuer     string `url:"beneficiaryDocumentIssuer,omitempty"`
	BeneficiaryDocumentSeries     string `url:"beneficiaryDocumentSeries,omitempty"`
	BeneficiaryDocumentNumber     string `url:"beneficiaryDocumentNumber,omitempty"`
	BeneficiaryDocumentIssuedAt   string `url:"beneficiaryDocumentIssuedAt,omitempty"`
	BeneficiaryDocumentValidUntil string `url:"beneficiaryDocumentValidUntil,omitempty"`

	// CardExpirationDate is MM/YY; when required it goes with CardToken.
	CardExpirationDate string `url:"cardExpirationDate,omitempty"`
	Description        string `url:"description,omitempty"`
	Phone              string `url:"phone,omitempty"`
	CardHolder         string `url:"cardHolder,omitempty"`
	FullName           string `url:"fullName,omitempty"`
	// ReceiverBankBIC is a BIC or SWIFT code.
	ReceiverBankBIC string `url:"receiverBankBIC,omitempty"`

	// Extra holds further parameters by the name payout-parameters returned,
	// sent as they are. A name that is a field above is rejected.
	Extra map[string]string `url:"extra,inline"`
}

// Payout is the gateway's answer to a payout request.
//
// All three fields decide what happened: success must be present, and with
// success true so must id and status (0 and "" are values); a field that
// cannot be read fails the call.
type Payout struct {
	ID      ID   `json:"id"`
	Success bool `json:"success"`
	// Status is a callback status, for example processing; the final one
	// (payout_completed, payout_failed, ...) arrives by callback.
	Status callback.Status `json:"status"`
	// Warnings lists fields of the answer beyond these three that could not
	// be read (see DecodeWarning); none are decoded today.
	Warnings []DecodeWarning `json:"-"`
}

// Create pays funds out (POST payout; extended form only). An answer with
// success false is returned as a [*DeclinedError]. When the outcome is
// unknown (errors.Is(err, ErrOutcomeUnknown)), settle it with
// [TransactionsService.Settle] (the error's SettleParams; give every payout
// an OrderID) before paying out again.
func (s *PayoutsService) Create(ctx context.Context, p *PayoutParams, opts ...CallOption) (*Payout, error) {
	if p == nil {
		p = &PayoutParams{}
	}
	out := new(payoutResponse)
	ep := endpoints[epCreatePayout]
	if err := s.client.do(ctx, ep, &payoutRequest{Type: p.Type.ID, PayoutParams: p}, out, opts); err != nil {
		return nil, err
	}
	if !out.Payout.Success {
		return nil, ep.declined(out.Payout.ID, string(out.Payout.Status))
	}
	return &out.Payout, nil
}

// CheckRequired checks, before sending, that every required parameter of
// controls (from [PayoutsService.Parameters]) has a value in p, in a field
// or in Extra: a parameter is missing when it would not be sent, or be sent
// empty. The type is always sent, id 0 included. It returns nil or a [*MissingParametersError]
// naming all the missing ones.
func (p *PayoutParams) CheckRequired(controls []PayoutParameter) error {
	if p == nil {
		p = &PayoutParams{}
	}
	pairs, err := formenc.Append(nil, &payoutRequest{Type: p.Type.ID, PayoutParams: p})
	if err != nil {
		return err
	}
	var names []string
	for _, c := range controls {
		if !c.Required {
			continue
		}
		if v, ok := pairs.Get(c.Name); !ok || v == "" {
			names = append(names, c.Name)
		}
	}
	if names != nil {
		return &MissingParametersError{Names: names}
	}
	return nil
}

// Set gives the parameter name, as [PayoutsService.Parameters] returned it,
// the value: the field of p that carries that name when there is one
// (FirstName for "firstName", Account for "account", the type's id for
// "type", 0 included), Extra otherwise. Set does not validate; Create does:
// a type that is not a number, or an amount, is kept in Extra, where Create
// reports it.
func (p *PayoutParams) Set(name, value string) {
	if i, ok := payoutFields()[name]; ok && i >= 0 {
		switch f := reflect.ValueOf(p).Elem().Field(i).Addr().Interface().(type) {
		case *AccountNumber:
			*f = NewAccountNumber(value)
		case *CardToken:
			*f = NewCardToken(value)
		case *string:
			*f = value
		}
		return
	}
	switch name {
	case "type":
		if id, err := strconv.Atoi(value); err == nil {
			if id != p.Type.ID {
				p.Type = PayoutType{ID: id}
			}
			return
		}
	}
	if p.Extra == nil {
		p.Extra = map[string]string{}
	}
	p.Extra[name] = value
}

// String describes the payout with the account masked and without the
// remitter's card, the card tokens, the expiry or Extra.
func (p PayoutParams) String() string {
	return fmt.Sprintf("paygate.PayoutParams{Type: %d %s, Account: %s, Amount: %s, Currency: %s, OrderID: %q}",
		p.Type.ID, p.Type.Key, p.Account, p.Amount, p.Currency, p.OrderID)
}

// GoString is String, so that %#v redacts too.
func (p PayoutParams) GoString() string { return p.String() }

// Format prints String for every verb.
func (p PayoutParams) Format(f fmt.State, _ rune) { io.WriteString(f, p.String()) }

// LogValue logs the payout without its secrets.
func (p PayoutParams) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("type", p.Type.ID), slog.String("account", p.Account.String()),
		slog.String("amount", p.Amount.String()), slog.String("currency", p.Currency), slog.String("order_id", p.OrderID))
}

// MarshalJSON writes the payout with its accounts masked (see
// AccountNumber) and without the card tokens, the card expiry or the values
// of Extra, which may carry any of them.
func (p PayoutParams) MarshalJSON() ([]byte, error) {
	type plain PayoutParams // without the methods, so that this is not recursive
	var extra map[string]string
	if p.Extra != nil {
		extra = make(map[string]string, len(p.Extra))
		for name, v := range p.Extra {
			extra[name] = masked(v != "", maskSecret)
		}
	}
	// The outer fields hide the embedded ones: encoding/json keeps the
	// shallower of two fields with one name.
	return json.Marshal(struct {
		plain
		RemitterCardExpirationMonth string
		RemitterCardExpirationYear  string
		CardExpirationDate          string
		Extra                       map[string]string
	}{
		plain(p),
		masked(p.RemitterCardExpirationMonth != "", maskMonth),
		masked(p.RemitterCardExpirationYear != "", maskYear),
		masked(p.CardExpirationDate != "", maskDate),
		extra,
	})
}

// binLength is how many leading digits of a card number payout-parameters
// takes.
const binLength = 6

func (p *PayoutParametersParams) validate() error {
	err := firstError(
		checkPayoutType(p.Type),
		// Without the key, whether only the BIN may go out cannot be told.
		checkRequired("type", p.Type.Key),
		checkRequired("account", p.Account.get()),
		checkCurrency("currency", p.Currency),
	)
	if err == nil && p.Type.IsCard() && (len(p.Account.get()) < binLength || !ascii.Digits(p.Account.get())) {
		return &ValidationError{Field: "account", Reason: "must be a card number (or its first 6 digits), digits only"}
	}
	return err
}

func (p *PayoutParams) validate(Form) error {
	err := firstError(
		checkPayoutType(p.Type),
		checkAmount("amount", p.Amount),
		checkCurrency("currency", p.Currency),
		checkMaxLen("orderId", p.OrderID, MaxOrderIDLength),
	)
	if err != nil {
		return err
	}
	switch {
	case p.Type.IsCard() && p.Account.IsZero() && p.CardToken.IsZero():
		return &ValidationError{Field: "account", Reason: "either account (the card number) or cardToken is required for a card payout"}
	case p.Type.IsCard() && !p.Account.IsZero() && !p.CardToken.IsZero():
		return &ValidationError{Field: "cardToken", Reason: "give either account or cardToken, not both"}
	case p.Type.IsCard() && !p.Account.IsZero():
		if err := checkCardNumber("account", p.Account.get()); err != nil {
			return err
		}
	case p.Type.Key != "" && !p.Type.IsCard() && !p.CardToken.IsZero():
		return &ValidationError{Field: "cardToken", Reason: "is only for card payouts"}
	}
	if p.CardExpirationDate != "" && !validCardExpiry(p.CardExpirationDate) {
		return &ValidationError{Field: "cardExpirationDate", Reason: "must be MM/YY"}
	}
	for _, f := range [...]struct{ name, v string }{{"documentType", p.DocumentType}, {"beneficiaryDocumentType", p.BeneficiaryDocumentType}} {
		if f.v != "" && f.v != "passport" && f.v != "id" {
			return &ValidationError{Field: f.name, Reason: "must be passport or id"}
		}
	}
	return p.checkExtra()
}

// checkExtra rejects Extra names that a field (or the pipeline) already
// sends, so that no parameter goes out twice.
func (p *PayoutParams) checkExtra() error {
	for name := range p.Extra {
		// order_id and id would also be taken for the payout's own order
		// or transaction id when an outcome is unknown.
		if _, own := payoutFields()[name]; name == "" || name == "project" || name == SignatureParam || name == "order_id" || name == "id" || own {
			return &ValidationError{Field: "Extra[" + name + "]", Reason: "is a parameter with its own field, or reserved"}
		}
	}
	return nil
}

// payoutFields maps the wire names of payoutRequest's fields to the index
// of the PayoutParams field that carries each as text (a string, an
// account, a card token), or -1 for the others (type, amount).
var payoutFields = sync.OnceValue(func() map[string]int {
	fields := map[string]int{"type": -1}
	t := reflect.TypeFor[PayoutParams]()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("url"), ",")
		if name == "" || name == "-" || opts == "inline" {
			continue
		}
		fields[name] = -1
		if f.Type.Kind() == reflect.String || f.Type == reflect.TypeFor[AccountNumber]() || f.Type == reflect.TypeFor[CardToken]() {
			fields[name] = i
		}
	}
	return fields
})

// validCardExpiry accepts MM/YY.
func validCardExpiry(s string) bool {
	if len(s) != 5 || s[2] != '/' || !ascii.Digits(s[:2]) || !ascii.Digits(s[3:]) {
		return false
	}
	m, _ := strconv.Atoi(s[:2])
	return m >= 1 && m <= 12
}

// payoutRequest is what POST payout sends: the type's id, then the params.
type payoutRequest struct {
	Type int `url:"type"`
	*PayoutParams
}

// payoutParameterQuery is what GET payout-parameters sends.
type payoutParameterQuery struct {
	Type     int    `url:"type"`
	Account  string `url:"account"`
	Currency string `url:"currency"`
}

type payoutTypesResponse struct {
	Success *bool        `json:"success"`
	Types   []PayoutType `json:"types"`
}

func (r *payoutTypesResponse) verifyAnswer() error {
	if *r.Success && r.Types == nil {
		return missing("types")
	}
	return nil
}

// payoutParameterList is the bare JSON array payout-parameters answers.
type payoutParameterList []PayoutParameter

// payoutResponse shadows the fields of Payout with pointers, so that an
// absent field is told from a zero one: read as false, a broken body would
// pass for a declined payout.
type payoutResponse struct {
	Payout
	Success *bool            `json:"success"`
	ID      *ID              `json:"id"`
	Status  *callback.Status `json:"status"`
}

func (r *payoutResponse) setWarnings(w []DecodeWarning) { r.Payout.Warnings = w }

func (r *payoutResponse) verifyAnswer() error {
	if r.ID != nil {
		r.Payout.ID = *r.ID
	}
	if r.Status != nil {
		r.Payout.Status = *r.Status
	}
	switch {
	case !*r.Success && r.Status != nil && *r.Status != "" && !callbackStatuses[*r.Status].endsPayout:
		// The gateway took the payout (it has a live status) yet says no:
		// which of the two holds cannot be told.
		return fmt.Errorf("success is false, but the payout is %s", *r.Status)
	case *r.Success && r.ID == nil:
		return missing("id")
	case *r.Success && r.Status == nil:
		return missing("status")
	}
	r.Payout.Success = *r.Success
	return nil
}

// UnmarshalJSON reads a payout type as the client does: id as a number or
// a numeric string.
func (t *PayoutType) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, t) }

// UnmarshalJSON reads a parameter as the client does: required as a
// boolean, 1/0 or "1"/"0"/"true"/"false".
func (c *PayoutParameter) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, c) }
