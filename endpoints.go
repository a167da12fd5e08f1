package paygate

import (
	"net/http"
	"strings"
)

// endpoint describes one method of the gateway: a row of endpoints.
type endpoint struct {
	method string // http.MethodGet or http.MethodPost
	path   string // below /v1/, for example "card/process"
	// unsigned methods are sent without a signature, as the gateway's own
	// browser and payout-form clients send them.
	unsigned bool
	// extendedOnly methods do not exist in the basic form: the call fails
	// with ErrBasicForm before anything is sent.
	extendedOnly bool
	// idempotent methods only read: they may be sent again after a failure
	// that may have reached the gateway. Any other method is sent again
	// only when it provably never left.
	idempotent bool
	// answer names the fields of the answer that decide what happened
	// (see decodeRules): every row has some, and TestEndpoints_EveryRowHasAnswerRules
	// keeps it so.
	answer decodeRules
	// kind is the operation a non-idempotent payment request performs,
	// which tells TransactionsService.Settle what to look for; empty for
	// the requests Settle does not settle.
	kind OperationKind
	// raw marks a raw call's endpoint (Client.Call), whose parameters and
	// path are the caller's and may hold anything: every value it sent is
	// masked in its errors, not only those of a card-bearing request, and
	// errors and log records name it by its operation, not its path (see
	// shownPath).
	raw bool
	// template is the path before at filled in its {id}: the operation's
	// name for observers, which must never carry an id.
	template string
}

// endpointName names a row of endpoints.
type endpointName int

const (
	epResolveUser endpointName = iota
	epChangeRecurring
	epCancelRecurring
	epTokenize
	epCharge
	epAuthenticate
	epChargeRecurring
	epReverse
	epCreateAlternative
	epStatus
	epPayoutTypes
	epPayoutParameters
	epCreatePayout
	epBalance
	epListTransactions
	epTransactionByID
)

// endpoints is the one table of the gateway's methods, as the spec's
// Endpoints section lists them. The sandbox's router serves the same rows
// (paygatetest's TestRoutesMatchEndpointTable compares them); the extended-only
// rows are the ones the spec takes from the basic form.
var endpoints = [...]endpoint{
	epResolveUser:       {method: http.MethodPost, path: "user/resolve", answer: resolveRules},
	epChangeRecurring:   {method: http.MethodPost, path: "user/changeRecurring", answer: successRules},
	epCancelRecurring:   {method: http.MethodPost, path: "user/cancelRecurring", answer: successRules},
	epTokenize:          {method: http.MethodGet, path: "card/getToken", unsigned: true, idempotent: true, answer: tokenRules},
	epCharge:            {method: http.MethodPost, path: "card/process", answer: chargeRules, kind: KindCharge},
	epAuthenticate:      {method: http.MethodPost, path: "card/authenticate", answer: chargeRules, kind: KindAuthenticate},
	epChargeRecurring:   {method: http.MethodPost, path: "card/processRecurring", answer: chargeRules, kind: KindRecurringCharge},
	epReverse:           {method: http.MethodPost, path: "transaction/reverse", answer: reversalRules, kind: KindReversal},
	epCreateAlternative: {method: http.MethodPost, path: "transaction/create", extendedOnly: true, answer: alternativeRules, kind: KindWalletPayment},
	epStatus:            {method: http.MethodGet, path: "transaction/status", idempotent: true, answer: statusRules},
	epPayoutTypes:       {method: http.MethodGet, path: "payout-types", unsigned: true, idempotent: true, answer: payoutTypesRules},
	epPayoutParameters:  {method: http.MethodGet, path: "payout-parameters", unsigned: true, idempotent: true, answer: payoutParameterRules},
	epCreatePayout:      {method: http.MethodPost, path: "payout", extendedOnly: true, answer: payoutRules, kind: KindPayout},
	epBalance:           {method: http.MethodGet, path: "balance", extendedOnly: true, idempotent: true, answer: balanceRules},
	epListTransactions:  {method: http.MethodGet, path: "transactions", extendedOnly: true, idempotent: true, answer: pageRules},
	epTransactionByID:   {method: http.MethodGet, path: "transactions/{id}", extendedOnly: true, idempotent: true, answer: transactionRules},
}

// The answer rules of the rows above: the fields whose absence or
// unreadable value fails the call. 0, "", false and "0.00" are values.
var (
	// resolveRules: the id is what the call is for.
	resolveRules = decodeRules{required: []string{"id"}}
	// successRules: the calls that answer only "success".
	successRules = decodeRules{required: []string{"success"}}
	// tokenRules: the token id is what the call is for.
	tokenRules = decodeRules{required: []string{"id"}}
	// chargeRules: whether the payment went through (success, status),
	// which transaction it is (id) and whether the payer must pass 3-D
	// Secure (acs) decide what happened; success and id are always sent.
	chargeRules = decodeRules{required: []string{"id", "success"}, essential: []string{"status", "acs"}}
	// reversalRules: success is always sent (a basic-form reversal answers
	// nothing else); id, status and type (a refund transaction) tell what
	// the reversal did.
	reversalRules = decodeRules{required: []string{"success"}, essential: []string{"id", "status", "type"}}
	// alternativeRules: the payment's id and status; the id is a string.
	alternativeRules = decodeRules{required: []string{"id", "status"}}
	// statusRules: which transaction and its status are what the look-up
	// is for.
	statusRules = decodeRules{required: []string{"id", "status"}}
	// payoutTypesRules: each type's id (0 is CREDIT_CARD) and key.
	payoutTypesRules = decodeRules{required: []string{"success", "types[].id", "types[].key"}}
	// payoutParameterRules: each parameter's name, and whether it is
	// required.
	payoutParameterRules = decodeRules{required: []string{"[].name"}, essential: []string{"[].required"}}
	// payoutRules: success is always sent; id and status tell what became
	// of the payout.
	payoutRules = decodeRules{required: []string{"success"}, essential: []string{"id", "status"}}
	// balanceRules: the amount and its currency are what the call is for;
	// the other figures are informational.
	balanceRules = decodeRules{required: []string{"amount", "currency"}}
	// pageRules: each transaction's id and status; Reconcile also decides
	// by the type.
	pageRules = decodeRules{
		required:  []string{"transactions", "transactions[].id", "transactions[].status"},
		essential: []string{"transactions[].type"},
	}
	// transactionRules: Reconcile and ConfirmCallback also decide by the
	// type.
	transactionRules = decodeRules{required: []string{"id", "status"}, essential: []string{"type"}}
)

// declined is the error of an answer of e with success false and no error
// object, one rule for every endpoint: the gateway received the request and
// refused it, and nothing happened. id and status are the transaction or
// payout the answer carried, if any (zero and "" when it carried none).
func (e endpoint) declined(id ID, status string) error {
	return &DeclinedError{Method: e.method, Path: e.shownPath(), ID: id, Status: status}
}

// endpointFor returns the row of endpoints that serves method and path (a
// path with a real id for {id}), with its path as given, and whether there
// is one.
func endpointFor(method, path string) (endpoint, bool) {
	for _, row := range endpoints {
		prefix, hasID := strings.CutSuffix(row.path, "{id}")
		if row.method == method && (row.path == path || hasID && strings.HasPrefix(path, prefix) && len(path) > len(prefix)) {
			return row.at(strings.TrimPrefix(path, prefix)), true
		}
	}
	return endpoint{}, false
}

// at returns the endpoint with the {id} of its path replaced by id.
func (e endpoint) at(id string) endpoint {
	e.template = e.path
	e.path = strings.Replace(e.path, "{id}", id, 1)
	return e
}

// operation names the endpoint as the API documentation does, for
// observers: its path, with {id} left unfilled.
func (e endpoint) operation() string {
	if e.template != "" {
		return e.template
	}
	return e.path
}

// shownPath names the endpoint in errors and log records: a typed call's
// path, whose only variable part is the id of a transaction the error
// names anyway; a raw call's operation, as an observer gets it
// ("transactions/{id}", or OperationOther for a path the SDK does not
// know), since a raw call's path may hold an e-mail address or a card
// number.
func (e endpoint) shownPath() string {
	if e.raw {
		return e.operation()
	}
	return e.path
}
