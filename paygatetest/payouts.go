package paygatetest

import (
	"strings"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/paygate/paygate-go/internal/cardnum"
)

// The payout types of the sandbox, by id. They are numbered from 0, as the
// production gateway numbers them (CREDIT_CARD is 0), so that a client which
// takes id 0 for "no type" fails here as it would there.
const (
	PayoutCreditCard = 0 // CREDIT_CARD: a card, by account (number) or cardToken
	PayoutSEPA       = 1 // SEPA: an IBAN, in EUR only
	PayoutWallet     = 2 // WALLET: an e-wallet account
)

// control is a Payout-parameter-control object.
type control struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

// payoutTypes serves payout-types.
func (s *Server) payoutTypes(*call) (any, *Error) {
	return map[string]any{"success": true, "types": []map[string]any{
		{"id": PayoutCreditCard, "key": "CREDIT_CARD", "label": "Credit card"},
		{"id": PayoutSEPA, "key": "SEPA", "label": "SEPA transfer"},
		{"id": PayoutWallet, "key": "WALLET", "label": "E-wallet"},
	}}, nil
}

// payoutParameters serves payout-parameters: the additional parameters of
// a payout of type to account (for CREDIT_CARD its BIN, the first 6
// digits) in currency, as a bare array. See payoutControls for the rules.
func (s *Server) payoutParameters(c *call) (any, *Error) {
	typ, err := payoutType(c.get("type"))
	if err != nil {
		return nil, err
	}
	account := c.get("account")
	if typ == PayoutCreditCard && (len(account) < 6 || !ascii.Digits(account)) {
		return nil, errMerchantData("account")
	}
	if account == "" {
		return nil, errMerchantData("account")
	}
	currency, ok := readCurrency(c.get("currency"))
	if !ok {
		return nil, errMerchantData("currency")
	}
	return payoutControls(typ, account, currency)
}

// createPayout serves POST payout: the common parameters and every
// required parameter payout-parameters lists, each checked (40014 naming
// the first missing or malformed one). The amount leaves the balance at
// once; the payout is processing, then completes (payout_completed), or
// fails and the amount returns (payout_failed) when paid to the declined
// test card.
func (s *Server) createPayout(c *call) (any, *Error) {
	typ, err := payoutType(c.get("type"))
	if err != nil {
		return nil, err
	}
	amount, currency, err := readMoney(c, "amount")
	if err != nil {
		return nil, err
	}
	if err := checkOrderID(c.get("orderId")); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	account := c.get("account")
	var cd *cardData
	if typ == PayoutCreditCard {
		switch {
		case c.get("cardToken") != "":
			if cd, err = s.st.useToken(c.project, c.get("cardToken"), now); err != nil {
				return nil, err
			}
		case account != "":
			if !cardnum.Valid(account) {
				return nil, NewError(paygate.CodeCardNumberInvalid, "")
			}
			cd = &cardData{number: strings.Clone(account)}
		default:
			return nil, NewError(paygate.CodeCardDataMissing, "")
		}
		if cd.number == CardBlocked {
			return nil, NewError(paygate.CodeCardBlocked, "")
		}
		account = cd.number
	} else if account == "" {
		return nil, errMerchantData("account")
	}
	controls, err := payoutControls(typ, account, currency)
	if err != nil {
		return nil, err
	}
	for _, ctl := range controls {
		if err := checkControl(ctl, c.get(ctl.Name)); err != nil {
			return nil, err
		}
	}
	t := s.st.newTxn(c.project, paygate.TypePayout, now)
	t.method, t.orderID, t.card = payoutKey(typ), c.keep("orderId"), cd
	t.price, t.currency = s.st.sameAmount(amount), currency
	s.st.credit(c.project, currency, amount.Neg())
	s.transition(t, paygate.StatusProcessing)
	return map[string]any{"id": t.id, "success": true, "status": callback.Processing}, nil
}

// payoutControls are the additional parameters of a payout:
//
//   - CREDIT_CARD: cardHolder; a Mastercard BIN (2 or 5) adds
//     cardExpirationDate (MM/YY); a currency other than EUR adds firstName,
//     lastName, birthDate (d.m.Y) and country, and optional address and
//     city.
//   - SEPA: EUR only (another currency is 42201); beneficiaryFirstName,
//     beneficiaryLastName and receiverBankBIC, optional description.
//   - WALLET: phone, optional fullName; a currency other than EUR adds
//     birthDate.
func payoutControls(typ int, account, currency string) ([]control, *Error) {
	text := func(name, label string, required bool) control {
		return control{Name: name, Type: "text", Label: label, Required: required}
	}
	date := func(name, label string) control {
		return control{Name: name, Type: "date", Label: label, Required: true}
	}
	var out []control
	switch typ {
	case PayoutCreditCard:
		out = append(out, text("cardHolder", "Card holder", true))
		if account[0] == '5' || account[0] == '2' {
			out = append(out, control{Name: "cardExpirationDate", Type: "expiry", Label: "Card expiry (MM/YY)", Required: true})
		}
		if currency != "EUR" {
			out = append(out, text("firstName", "First name", true), text("lastName", "Last name", true),
				date("birthDate", "Birth date (d.m.Y)"), text("country", "Country", true),
				text("address", "Address", false), text("city", "City", false))
		}
	case PayoutSEPA:
		if currency != "EUR" {
			return nil, NewError(paygate.CodeGatewayMisconfigured, "SEPA payouts are in EUR only")
		}
		out = append(out, text("beneficiaryFirstName", "Beneficiary first name", true),
			text("beneficiaryLastName", "Beneficiary last name", true),
			text("receiverBankBIC", "BIC or SWIFT code", true), text("description", "Description", false))
	case PayoutWallet:
		out = append(out, text("phone", "Phone", true), text("fullName", "Full name", false))
		if currency != "EUR" {
			out = append(out, date("birthDate", "Birth date (d.m.Y)"))
		}
	}
	return out, nil
}

// checkControl checks one additional parameter's value.
func checkControl(ctl control, v string) *Error {
	if v == "" {
		if ctl.Required {
			return errMerchantData(ctl.Name)
		}
		return nil
	}
	var ok bool
	switch ctl.Type {
	case "date":
		_, err := time.Parse("02.01.2006", v)
		ok = err == nil
	case "expiry":
		_, err := time.Parse("01/06", v)
		ok = err == nil
	default:
		ok = true
	}
	if !ok {
		return errMerchantData(ctl.Name)
	}
	return nil
}

func payoutKey(typ int) string {
	switch typ {
	case PayoutCreditCard:
		return "CREDIT_CARD"
	case PayoutSEPA:
		return "SEPA"
	}
	return "WALLET"
}
