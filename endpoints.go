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
	// kind is the operation a non-idempotent payment request performs,
	// which tells TransactionsService.Settle what to look for; empty for
	// the requests Settle does not settle.
	kind OperationKind
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
	epResolveUser:       {method: http.MethodPost, path: "user/resolve"},
	epChangeRecurring:   {method: http.MethodPost, path: "user/changeRecurring"},
	epCancelRecurring:   {method: http.MethodPost, path: "user/cancelRecurring"},
	epTokenize:          {method: http.MethodGet, path: "card/getToken", unsigned: true, idempotent: true},
	epCharge:            {method: http.MethodPost, path: "card/process", kind: KindCharge},
	epAuthenticate:      {method: http.MethodPost, path: "card/authenticate", kind: KindAuthenticate},
	epChargeRecurring:   {method: http.MethodPost, path: "card/processRecurring", kind: KindRecurringCharge},
	epReverse:           {method: http.MethodPost, path: "transaction/reverse", kind: KindReversal},
	epCreateAlternative: {method: http.MethodPost, path: "transaction/create", extendedOnly: true, kind: KindWalletPayment},
	epStatus:            {method: http.MethodGet, path: "transaction/status", idempotent: true},
	epPayoutTypes:       {method: http.MethodGet, path: "payout-types", unsigned: true, idempotent: true},
	epPayoutParameters:  {method: http.MethodGet, path: "payout-parameters", unsigned: true, idempotent: true},
	epCreatePayout:      {method: http.MethodPost, path: "payout", extendedOnly: true, kind: KindPayout},
	epBalance:           {method: http.MethodGet, path: "balance", extendedOnly: true, idempotent: true},
	epListTransactions:  {method: http.MethodGet, path: "transactions", extendedOnly: true, idempotent: true},
	epTransactionByID:   {method: http.MethodGet, path: "transactions/{id}", extendedOnly: true, idempotent: true},
}

// at returns the endpoint with the {id} of its path replaced by id.
func (e endpoint) at(id string) endpoint {
	e.path = strings.Replace(e.path, "{id}", id, 1)
	return e
}
