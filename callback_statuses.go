package paygate

import "github.com/paygate/paygate-go/callback"

// callbackStatusRule is what one callback status means to the client: a
// row of callbackStatuses.
type callbackStatusRule struct {
	// shapes are the records that confirm the callback (see
	// [CallbackShapes]); within a status the shapes' types never overlap,
	// so the record's type picks the shape.
	shapes []CallbackShape
	// observes is what the callback observes of an order (see
	// [ObserveCallback]): observedNothing for the statuses that leave it as
	// it is.
	observes observed
	// endsPayout is set for the statuses that end a payout without paying
	// out: a payout answer with success false and one of them is a
	// refusal, with any other a contradiction.
	endsPayout bool
}

// charges are the types of a transaction that takes funds from a payer
// (deposit is the basic form's name for a payment).
var charges = []TransactionType{TypePayment, TypeDeposit}

// cardCharges adds the verification, which card/process makes with
// verify_card and which goes through the same statuses.
var cardCharges = []TransactionType{TypePayment, TypeDeposit, TypeVerification}

// payout is the type of every payout_* callback.
var payout = []TransactionType{TypePayout}

// callbackStatuses is the one table of what each callback status of the
// spec means to the client. Every status of callback.Statuses has a row
// (TestCallbackStatuses_EveryStatusHasARow keeps it so); a status the spec
// does not list has none: it confirms nothing and observes nothing. What a
// status means to the callback package (its stage) is callback's own
// table; which changes send it is paygatetest's.
var callbackStatuses = map[callback.Status]callbackStatusRule{
	callback.Completed: {
		shapes:   []CallbackShape{{Types: charges, Statuses: []Status{StatusCompleted}}},
		observes: observedPaid,
	},
	callback.WaitingApproval: {
		shapes: []CallbackShape{
			{Types: charges, Statuses: []Status{StatusWaitingApproval}},
			{Types: payout, Statuses: []Status{StatusWaitingApproval}},
		},
		observes: observedProcessing,
	},
	// A payout is processing first too, and says so with this status
	// (the spec gives processing as a payout's first status).
	callback.Processing: {
		shapes: []CallbackShape{
			{Types: cardCharges, Statuses: []Status{StatusProcessing}},
			{Types: payout, Statuses: []Status{StatusProcessing}},
		},
		observes: observedProcessing,
	},
	callback.Failed: {
		shapes:     []CallbackShape{{Types: cardCharges, Statuses: []Status{StatusFailed}}},
		observes:   observedFailed,
		endsPayout: true,
	},
	// A verification changes no order.
	callback.Verified: {
		shapes: []CallbackShape{{Types: cardCharges, Statuses: []Status{StatusVerified}}},
	},
	callback.Reversed: {
		shapes:   []CallbackShape{{Types: charges, Statuses: []Status{StatusReversed, StatusRefunded}}},
		observes: observedRefundAll,
	},
	// Observed here: the basic form's shape, about the payment itself.
	// About the refund (a reference_id) it observes the refund's price:
	// see ObserveCallback.
	callback.RefundCompleted: {
		shapes: []CallbackShape{
			{Types: []TransactionType{TypeRefund}, Statuses: []Status{StatusCompleted}, Child: true},
			{Types: charges, Statuses: []Status{StatusRefunded}, BasicOnly: true},
		},
		observes: observedRefundAll,
	},
	callback.ChargebackCompleted: {
		shapes: []CallbackShape{
			{Types: []TransactionType{TypeChargeback}, Statuses: []Status{StatusCompleted}, Child: true},
			{Types: charges, Statuses: []Status{StatusChargedBack}},
		},
		observes: observedChargeback,
	},
	callback.RetrievalCompleted: {
		shapes: []CallbackShape{
			{Types: []TransactionType{TypeRetrieval}, Statuses: []Status{StatusCompleted}, Child: true},
			{Types: charges, Statuses: []Status{StatusRetrieved}},
		},
		observes: observedRetrieval,
	},
	// A penalty is a fine on the merchant: it leaves the order as it is.
	callback.PenaltyCompleted: {
		shapes: []CallbackShape{{Types: []TransactionType{TypePenalty}, Statuses: []Status{StatusCompleted}, Child: true}},
	},
	// The payout_* statuses are about no order.
	callback.PayoutCompleted: {
		shapes: []CallbackShape{{Types: payout, Statuses: []Status{StatusCompleted}}},
	},
	callback.PayoutFailed: {
		shapes:     []CallbackShape{{Types: payout, Statuses: []Status{StatusFailed}}},
		endsPayout: true,
	},
	callback.PayoutCancelled: {
		shapes:     []CallbackShape{{Types: payout, Statuses: []Status{StatusCancelled}}},
		endsPayout: true,
	},
	callback.PayoutAbandoned: {
		shapes:     []CallbackShape{{Types: payout, Statuses: []Status{StatusAbandoned}}},
		endsPayout: true,
	},
}
