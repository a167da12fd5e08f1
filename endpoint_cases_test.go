package paygate

import (
	"context"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// endpointCase is what the test suites need to know about one endpoint, in
// one row keyed by the endpoint's name: the fault and logging suites make
// its calls, the nil-params suite calls them without params, the decoder
// suite and the FuzzDecode targets read its answer. A new endpoint gets a
// row here, and every suite covers it.
type endpointCase struct {
	// calls are the service methods that send the endpoint: its own method
	// first, then those built on it (Reconcile and All on the listing).
	calls []serviceCall
	// secrets are further calls that send card data, a token or a payout
	// account: the logging suite proves none of it reaches a log line.
	secrets []serviceCall
	// answer is how the endpoint's answer is read.
	answer answerCase
}

// serviceCall is one way of calling a service method.
type serviceCall struct {
	name string // Service.Method, for subtest names
	// call makes a typical call; order is the order id to send when
	// carriesOrder.
	call         func(ctx context.Context, c *Client, order string) error
	carriesOrder bool
	// withNil and withEmpty call the method with nil params and with empty
	// ones; nil for a method that takes no params.
	withNil, withEmpty func(ctx context.Context, c *Client) error
}

// answerCase describes an endpoint's answer for the decoder suite. The
// fields that fail the call when absent are the row's answer rules (see
// endpoints.go) plus alsoRequired.
type answerCase struct {
	// fixture is a good answer, in testdata/: the decoder suite edits it,
	// the FuzzDecode targets seed with it, and the fault and logging
	// suites' server answers it (fixtureFor).
	fixture string
	// decode calls the method and returns the value of the probe field.
	decode func(ctx context.Context, c *Client) (string, error)
	// probe is the JSON path of a text field: the status when the answer
	// has one, else another string the gateway sends; "" for none.
	probe string
	// probeIsStatus reports whether probe is a status (kept when unknown).
	probeIsStatus bool
	// integer and money are the paths of an integer and of an amount, ""
	// when the answer has none.
	integer, money string
	// alsoRequired are the fields the answer's own check requires of an
	// answer that reports success, beyond the row's rules.
	alsoRequired []string
	// into returns the value the method decodes the answer into, for the
	// checks and fuzz targets that call the decoding step directly.
	into func() any
}

// caseTransactionID is the id the by-id calls ask for: above 2^53, so that
// a float on its way would show.
const caseTransactionID ID = 9007199254740993107

// endpointCases returns the row of every endpoint of endpoints.
func endpointCases() map[endpointName]endpointCase {
	eur := decimal.RequireFromString("24.90")
	sepa := PayoutType{ID: 4, Key: "SEPA"}
	const iban = "DE89370400440532013000"
	return map[endpointName]endpointCase{
		epResolveUser: {
			calls: []serviceCall{{name: "Users.Resolve",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Users.Resolve(ctx, &ResolveUserParams{Identifier: "cust-8841", IP: "203.0.113.7"}))
				},
				withNil:   func(ctx context.Context, c *Client) error { return errOf(c.Users.Resolve(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error { return errOf(c.Users.Resolve(ctx, &ResolveUserParams{})) },
			}},
			answer: answerCase{fixture: "user_resolve.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					id, err := c.Users.Resolve(ctx, &ResolveUserParams{Identifier: "cust-1", IP: "203.0.113.7"})
					return string(id), err
				},
				probe: "id", into: func() any { return new(resolveResponse) }},
		},
		epChangeRecurring: {
			calls: []serviceCall{{name: "Users.ChangeRecurring",
				call: func(ctx context.Context, c *Client, _ string) error {
					return c.Users.ChangeRecurring(ctx, &ChangeRecurringParams{User: "100452", Interval: Days(30)})
				},
				withNil: func(ctx context.Context, c *Client) error { return c.Users.ChangeRecurring(ctx, nil) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return c.Users.ChangeRecurring(ctx, &ChangeRecurringParams{})
				},
			}},
			answer: answerCase{fixture: "user_recurring_success.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					return "", c.Users.ChangeRecurring(ctx, &ChangeRecurringParams{User: "1", Interval: Days(7)})
				},
				into: func() any { return new(successResponse) }},
		},
		epCancelRecurring: {
			calls: []serviceCall{{name: "Users.CancelRecurring",
				call: func(ctx context.Context, c *Client, _ string) error {
					return c.Users.CancelRecurring(ctx, &CancelRecurringParams{User: "100452"})
				},
				withNil: func(ctx context.Context, c *Client) error { return c.Users.CancelRecurring(ctx, nil) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return c.Users.CancelRecurring(ctx, &CancelRecurringParams{})
				},
			}},
			answer: answerCase{fixture: "user_recurring_success.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					return "", c.Users.CancelRecurring(ctx, &CancelRecurringParams{User: "1"})
				},
				into: func() any { return new(successResponse) }},
		},
		epTokenize: {
			calls: []serviceCall{{name: "Cards.Tokenize",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Cards.Tokenize(ctx, &TokenizeParams{Number: NewCardNumber("4242424242424242"), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("737")}))
				},
				withNil:   func(ctx context.Context, c *Client) error { return errOf(c.Cards.Tokenize(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error { return errOf(c.Cards.Tokenize(ctx, &TokenizeParams{})) },
			}},
			secrets: []serviceCall{{name: "Cards.Tokenize with card data",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Cards.Tokenize(ctx, &TokenizeParams{Number: NewCardNumber(loggedTokenizedNumber), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(loggedTokenizedCode)}))
				}}},
			answer: answerCase{fixture: "card_get_token.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					tok, err := c.Cards.Tokenize(ctx, &TokenizeParams{Number: NewCardNumber("4242424242424242"), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("737")})
					return textOf(tok == nil, err, func() string { return tok.ID })
				},
				probe: "id", integer: "card.expirationMonth", into: func() any { return new(Token) }},
		},
		epCharge: {
			calls: []serviceCall{{name: "Cards.Charge",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Cards.Charge(ctx, &ChargeParams{User: "100452", CardToken: NewCardToken("5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45"),
						Price: eur, Currency: "EUR", Description: "Order " + order, OrderID: order}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Cards.Charge(ctx, nil)) },
				withEmpty:    func(ctx context.Context, c *Client) error { return errOf(c.Cards.Charge(ctx, &ChargeParams{})) },
			}},
			secrets: []serviceCall{
				{name: "Cards.Charge with a card", carriesOrder: true,
					call: func(ctx context.Context, c *Client, order string) error {
						return errOf(c.Cards.Charge(ctx, &ChargeParams{UserDetails: &UserDetails{Identifier: "cust-1"},
							Card:  &CardDetails{Number: NewCardNumber(loggedChargedNumber), Expiry: NewExpiry(9, 2029), SecurityCode: NewSecurityCode(loggedChargedCode), Holder: "JANE DOE"},
							Price: eur, Currency: "EUR", Description: "Order", OrderID: order}))
					}},
				{name: "Cards.Charge with a permanent token", carriesOrder: true,
					call: func(ctx context.Context, c *Client, order string) error {
						return errOf(c.Cards.Charge(ctx, &ChargeParams{User: "100452", CardToken: NewCardToken(loggedPermanentToken), Price: eur, Currency: "EUR", Description: "Order", OrderID: order}))
					}},
			},
			answer: answerCase{fixture: "card_process_extended.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					p, err := c.Cards.Charge(ctx, &ChargeParams{User: "1", CardToken: NewCardToken("tok"), Price: decimal.RequireFromString("1"), Currency: "EUR", Description: "d", OrderID: "ord-1"})
					return textOf(p == nil, err, func() string { return string(p.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "id", money: "price", into: func() any { return new(Payment) }},
		},
		epAuthenticate: {
			calls: []serviceCall{{name: "Cards.Authenticate",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Cards.Authenticate(ctx, &AuthenticateParams{PaRes: NewACSData("eJxVUttugkAQ"), MD: NewACSData("a1b2c3")}))
				},
				withNil: func(ctx context.Context, c *Client) error { return errOf(c.Cards.Authenticate(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Cards.Authenticate(ctx, &AuthenticateParams{}))
				},
			}},
			answer: answerCase{fixture: "card_authenticate.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					p, err := c.Cards.Authenticate(ctx, &AuthenticateParams{PaRes: NewACSData("eJxVUttugkAQ"), MD: NewACSData("a1b2c3")})
					return textOf(p == nil, err, func() string { return p.ID.String() })
				},
				integer: "id", into: func() any { return new(Payment) }},
		},
		epChargeRecurring: {
			calls: []serviceCall{{name: "Cards.ChargeRecurring",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Cards.ChargeRecurring(ctx, &ChargeRecurringParams{User: "100452", Price: eur, Currency: "EUR", OrderID: order}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Cards.ChargeRecurring(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Cards.ChargeRecurring(ctx, &ChargeRecurringParams{}))
				},
			}},
			answer: answerCase{fixture: "card_process_recurring_extended.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					p, err := c.Cards.ChargeRecurring(ctx, &ChargeRecurringParams{User: "100452", Price: decimal.RequireFromString("9.99"), Currency: "EUR", OrderID: "sub-1"})
					return textOf(p == nil, err, func() string { return string(p.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "id", money: "price", into: func() any { return new(Payment) }},
		},
		epReverse: {
			calls: []serviceCall{{name: "Transactions.Reverse",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Transactions.Reverse(ctx, &ReverseParams{OrderID: order, Amount: eur}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Transactions.Reverse(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Transactions.Reverse(ctx, &ReverseParams{}))
				},
			}},
			answer: answerCase{fixture: "transaction_reverse_extended.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					p, err := c.Transactions.Reverse(ctx, &ReverseParams{OrderID: "ord-1", Amount: decimal.RequireFromString("1")})
					return textOf(p == nil, err, func() string { return string(p.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "referenceId", money: "fee", into: func() any { return new(Payment) }},
		},
		epCreateAlternative: {
			calls: []serviceCall{{name: "Transactions.Create",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Transactions.Create(ctx, &AlternativeCreateParams{UserIdentifier: "cust-8841", PaymentMethod: MethodPayPal,
						Price: eur, Currency: "EUR", Description: "Order " + order, SuccessURL: "https://shop.example.com/ok",
						FailURL: "https://shop.example.com/fail", OrderID: order}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Transactions.Create(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Transactions.Create(ctx, &AlternativeCreateParams{}))
				},
			}},
			answer: answerCase{fixture: "transaction_create.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					ap, err := c.Transactions.Create(ctx, &AlternativeCreateParams{UserIdentifier: "u", PaymentMethod: MethodPayPal, Price: decimal.RequireFromString("1"),
						Currency: "EUR", Description: "d", SuccessURL: "https://s.example", FailURL: "https://f.example", OrderID: "ord-1"})
					return textOf(ap == nil, err, func() string { return string(ap.Status) })
				},
				probe: "status", probeIsStatus: true, money: "amount", into: func() any { return new(AlternativePayment) }},
		},
		epStatus: {
			calls: []serviceCall{{name: "Transactions.Status",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Transactions.Status(ctx, &TransactionStatusParams{OrderID: order}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Transactions.Status(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Transactions.Status(ctx, &TransactionStatusParams{}))
				},
			}},
			answer: answerCase{fixture: "transaction_status.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					st, err := c.Transactions.Status(ctx, &TransactionStatusParams{OrderID: "ord-1"})
					return textOf(st == nil, err, func() string { return string(st.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "id", money: "price", into: func() any { return new(TransactionStatus) }},
		},
		epPayoutTypes: {
			calls: []serviceCall{{name: "Payouts.Types",
				call: func(ctx context.Context, c *Client, _ string) error { return errOf(c.Payouts.Types(ctx)) },
			}},
			answer: answerCase{fixture: "payout_types.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					types, err := c.Payouts.Types(ctx)
					return textOf(types == nil, err, func() string { return types[0].Key })
				},
				probe: "types[0].key", integer: "types[0].id", alsoRequired: []string{"types"},
				into: func() any { return new(payoutTypesResponse) }},
		},
		epPayoutParameters: {
			calls: []serviceCall{{name: "Payouts.Parameters",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Payouts.Parameters(ctx, &PayoutParametersParams{Type: sepa, Account: NewAccountNumber(iban), Currency: "EUR"}))
				},
				withNil: func(ctx context.Context, c *Client) error { return errOf(c.Payouts.Parameters(ctx, nil)) },
				withEmpty: func(ctx context.Context, c *Client) error {
					return errOf(c.Payouts.Parameters(ctx, &PayoutParametersParams{}))
				},
			}},
			secrets: []serviceCall{{name: "Payouts.Parameters for a card",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Payouts.Parameters(ctx, &PayoutParametersParams{Type: PayoutType{ID: 1, Key: PayoutTypeCreditCard}, Account: NewAccountNumber(loggedPayoutNumber), Currency: "EUR"}))
				}}},
			answer: answerCase{fixture: "payout_parameters_sepa.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					params, err := c.Payouts.Parameters(ctx, &PayoutParametersParams{Type: sepa, Account: NewAccountNumber(iban), Currency: "EUR"})
					return textOf(params == nil, err, func() string { return params[0].Name })
				},
				probe: "[0].name", into: func() any { return new(payoutParameterList) }},
		},
		epCreatePayout: {
			calls: []serviceCall{{name: "Payouts.Create",
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Payouts.Create(ctx, &PayoutParams{Type: sepa, Account: NewAccountNumber(iban),
						Amount: eur, Currency: "EUR", OrderID: order, FirstName: "Jane", LastName: "Doe"}))
				},
				carriesOrder: true,
				withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Payouts.Create(ctx, nil)) },
				withEmpty:    func(ctx context.Context, c *Client) error { return errOf(c.Payouts.Create(ctx, &PayoutParams{})) },
			}},
			secrets: []serviceCall{{name: "Payouts.Create to a card", carriesOrder: true,
				call: func(ctx context.Context, c *Client, order string) error {
					return errOf(c.Payouts.Create(ctx, &PayoutParams{Type: PayoutType{ID: 1, Key: PayoutTypeCreditCard}, Account: NewAccountNumber(loggedPayoutNumber),
						Amount: eur, Currency: "EUR", OrderID: order, RemitterCardNumber: NewAccountNumber(loggedRemitterNumber)}))
				}}},
			answer: answerCase{fixture: "payout.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					po, err := c.Payouts.Create(ctx, &PayoutParams{Type: sepa, Account: NewAccountNumber(iban), Amount: decimal.RequireFromString("1"), Currency: "EUR", OrderID: "ord-1"})
					return textOf(po == nil, err, func() string { return string(po.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "id", alsoRequired: []string{"id", "status"},
				into: func() any { return new(payoutResponse) }},
		},
		epBalance: {
			calls: []serviceCall{{name: "Balance.Get",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Balance.Get(ctx, &BalanceParams{Currency: "EUR"}))
				},
			}},
			answer: answerCase{fixture: "balance.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					b, err := c.Balance.Get(ctx, nil)
					return textOf(b == nil, err, func() string { return b.Currency })
				},
				probe: "currency", money: "base_amount", into: func() any { return new(Balance) }},
		},
		epListTransactions: {
			calls: []serviceCall{
				{name: "Transactions.List",
					call: func(ctx context.Context, c *Client, order string) error {
						return errOf(c.Transactions.List(ctx, &TransactionListParams{OrderID: order}))
					},
					carriesOrder: true,
					withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Transactions.List(ctx, nil)) },
					withEmpty: func(ctx context.Context, c *Client) error {
						return errOf(c.Transactions.List(ctx, &TransactionListParams{}))
					},
				},
				{name: "Transactions.Reconcile",
					call: func(ctx context.Context, c *Client, order string) error {
						return errOf(c.Transactions.Reconcile(ctx, order))
					},
					carriesOrder: true,
				},
				{name: "Transactions.Settle",
					call: func(ctx context.Context, c *Client, order string) error {
						return errOf(c.Transactions.Settle(ctx, &TransactionSettleParams{Kind: KindPayout, OrderID: order}))
					},
					carriesOrder: true,
					withNil:      func(ctx context.Context, c *Client) error { return errOf(c.Transactions.Settle(ctx, nil)) },
					withEmpty: func(ctx context.Context, c *Client) error {
						return errOf(c.Transactions.Settle(ctx, &TransactionSettleParams{}))
					},
				},
				{name: "Transactions.All",
					call: func(ctx context.Context, c *Client, order string) error {
						return firstOf(c.Transactions.All(ctx, &TransactionListParams{OrderID: order}))
					},
					carriesOrder: true,
					withNil:      func(ctx context.Context, c *Client) error { return firstOf(c.Transactions.All(ctx, nil)) },
					withEmpty: func(ctx context.Context, c *Client) error {
						return firstOf(c.Transactions.All(ctx, &TransactionListParams{}))
					},
				},
			},
			answer: answerCase{fixture: "transactions_list_single.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					page, err := c.Transactions.List(ctx, &TransactionListParams{OrderID: "ord-1"})
					return textOf(page == nil, err, func() string { return string(page.Transactions[0].Status) })
				},
				probe: "transactions[0].status", probeIsStatus: true, integer: "totalCount", money: "transactions[0].price",
				into: func() any { return new(TransactionPage) }},
		},
		epTransactionByID: {
			calls: []serviceCall{{name: "Transactions.Get",
				call: func(ctx context.Context, c *Client, _ string) error {
					return errOf(c.Transactions.Get(ctx, caseTransactionID))
				},
			}},
			answer: answerCase{fixture: "transactions_by_id.json",
				decode: func(ctx context.Context, c *Client) (string, error) {
					tx, err := c.Transactions.Get(ctx, caseTransactionID)
					return textOf(tx == nil, err, func() string { return string(tx.Status) })
				},
				probe: "status", probeIsStatus: true, integer: "id", money: "fee", into: func() any { return new(Transaction) }},
		},
	}
}

// The card data, tokens and accounts the secrets calls send, which the
// logging suite looks for in every log line.
const (
	loggedTokenizedNumber = "4111111111111111"
	loggedTokenizedCode   = "8402"
	loggedChargedNumber   = "4000000000003220"
	loggedChargedCode     = "9173"
	loggedPayoutNumber    = "5555555555554444"
	loggedRemitterNumber  = "4000056655665556"
	loggedPermanentToken  = "c41e8a2f6b0d4f9a8e3c5b7d1f2a6e90" // sent as card_token
)

// casePath is the path a call of row name sends: the row's, with
// caseTransactionID for {id}.
func casePath(name endpointName) string {
	return endpoints[name].at(caseTransactionID.String()).path
}

// endpointNames returns every row's name in the table's order.
func endpointNames() []endpointName {
	names := make([]endpointName, len(endpoints))
	for i := range endpoints {
		names[i] = endpointName(i)
	}
	return names
}

// everyEndpointCall lists every service method of the client that sends a
// request, Reconcile and All included, in the endpoint table's order.
func everyEndpointCall() []endpointCall {
	return endpointCalls(func(ec endpointCase) []serviceCall { return ec.calls })
}

// everySecretCall lists the calls that send card data, tokens or accounts.
func everySecretCall() []endpointCall {
	return endpointCalls(func(ec endpointCase) []serviceCall { return ec.secrets })
}

func endpointCalls(of func(endpointCase) []serviceCall) []endpointCall {
	cases := endpointCases()
	var out []endpointCall
	for _, name := range endpointNames() {
		for _, sc := range of(cases[name]) {
			out = append(out, endpointCall{sc.name, endpoints[name].method, casePath(name), sc.call, sc.carriesOrder})
		}
	}
	return out
}

// responseDecoder returns the decoder suite's view of row name's answer.
func responseDecoderOf(name endpointName) responseDecoder {
	ec := endpointCases()[name]
	row := endpoints[name]
	a := ec.answer
	// The rules write "[]" for any index; the suite edits the first.
	first := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = strings.ReplaceAll(p, "[]", "[0]")
		}
		return out
	}
	required := first(row.answer.required)
	for _, p := range a.alsoRequired {
		if !slices.Contains(required, p) {
			required = append(required, p)
		}
	}
	return responseDecoder{
		name: ec.calls[0].name, method: row.method, path: casePath(name), fixture: a.fixture,
		decode: a.decode, probe: a.probe, probeIsStatus: a.probeIsStatus,
		required: required, integer: a.integer, money: a.money, essential: first(row.answer.essential),
		into: a.into,
	}
}

// everyResponseDecoder lists a decoder per endpoint, in the table's order:
// per endpoint whose row has a call and an answer, as
// TestEndpointCases_OneRowPerEndpoint requires and names the rows without.
func everyResponseDecoder() []responseDecoder {
	cases := endpointCases()
	var out []responseDecoder
	for _, name := range endpointNames() {
		if ec := cases[name]; len(ec.calls) > 0 && ec.answer.into != nil {
			out = append(out, responseDecoderOf(name))
		}
	}
	return out
}
