package paygatetest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// Both ways of driving a transaction: the Go method and the control plane.
var drivers = []string{"go", "http"}

// forms are both forms of the interface, by name.
var forms = map[string]paygate.Form{"extended": paygate.FormExtended, "basic": paygate.FormBasic}

// forEachFormAndDriver runs f as a subtest in each form and for each way
// of driving the sandbox, on a new sandbox in that form with opts.
func forEachFormAndDriver(t *testing.T, f func(t *testing.T, s *sandbox, form paygate.Form, via string), opts ...paygatetest.Option) {
	for name, form := range forms {
		for _, via := range drivers {
			t.Run(name+"/"+via, func(t *testing.T) {
				f(t, newSandbox(t, append([]paygatetest.Option{paygatetest.WithForm(form)}, opts...)...), form, via)
			})
		}
	}
}

// trigger applies e to transaction id through via ("go" or "http") and
// returns the id of the transaction it answers with; on failure it returns
// the HTTP status and error code the control plane gave (for "go", the
// ones its error maps to).
func (s *sandbox) trigger(via, id string, e paygatetest.Event) (string, int, paygate.ErrorCode) {
	s.t.Helper()
	if via == "go" {
		n, err := strconv.ParseInt(id, 10, 64)
		require.NoError(s.t, err)
		got, err := s.srv.Trigger(paygate.ID(n), e)
		switch {
		case err == nil:
			return got.String(), http.StatusOK, 0
		case errors.Is(err, paygatetest.ErrEventNotApplicable):
			return "", http.StatusConflict, 40900
		case errors.Is(err, paygatetest.ErrTransactionNotFound):
			return "", http.StatusNotFound, paygate.CodeTransactionNotFound
		case errors.Is(err, paygatetest.ErrUnknownEvent):
			return "", http.StatusNotFound, 40400
		}
		s.t.Fatalf("unexpected error %v", err)
	}
	status, out := s.control(http.MethodPost, "/sandbox/transactions/"+id+"/"+string(e), nil)
	if status != http.StatusOK {
		e := out["error"].(map[string]any)
		n, _ := e["code"].(json.Number).Int64()
		require.NotEmpty(s.t, e["message"])
		return "", status, paygate.ErrorCode(n)
	}
	return idOf(out), status, 0
}

// mustTrigger applies e and requires success.
func (s *sandbox) mustTrigger(via, id string, e paygatetest.Event) string {
	s.t.Helper()
	got, status, code := s.trigger(via, id, e)
	require.Equal(s.t, http.StatusOK, status, "%s of %s: code %d", e, id, code)
	return got
}

// lastCallback is the newest delivery, its signature checked.
func (s *sandbox) lastCallback() url.Values {
	s.t.Helper()
	all := s.srv.Deliveries()
	require.NotEmpty(s.t, all)
	v := all[len(all)-1].Values
	require.NoError(s.t, paygate.VerifySignature(v, s.srv.PrivateKey), "callbacks are signed")
	return v
}

// eventOutcome is an event applied to a transaction and what it must
// show: the transaction's status, the status of the callback it sends (""
// for none) and the EUR balance after it.
type eventOutcome struct {
	e        paygatetest.Event
	status   string
	callback string // "" for none
	balance  string
}

// checkOutcome checks what want.e, just applied, shows of transaction id
// of order orderID; before is how many callbacks were delivered before it.
func (s *sandbox) checkOutcome(id, orderID string, before int, want eventOutcome) {
	s.t.Helper()
	st, _ := s.statusOf(id)
	assert.Equal(s.t, want.status, st)
	if want.callback == "" {
		assert.Len(s.t, s.srv.Deliveries(), before, "the gateway has no callback for %s", want.status)
	} else {
		v := s.lastCallback()
		assert.Equal(s.t, want.callback, v.Get("status"))
		assert.Equal(s.t, id, v.Get("id"))
		assert.Equal(s.t, orderID, v.Get("order_id"))
	}
	assert.Equal(s.t, want.balance, s.balanceEUR())
}

func (s *sandbox) statusOf(id string) (status, original any) {
	s.t.Helper()
	out := s.ok("transaction/status", url.Values{"id": {id}})
	return out["status"], out["original_status"]
}

func (s *sandbox) balanceEUR() string {
	s.t.Helper()
	return s.ok("balance", url.Values{"currency": {"EUR"}})["amount"].(string)
}

func TestChargebackRetrievalPenalty_EveryView(t *testing.T) {
	t.Parallel()
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		extended := form == paygate.FormExtended
		// money is how a callback writes an amount: fixed-point strings in
		// the extended form, numbers in the basic form (the spec's Events
		// table and basic-form typing).
		money := func(ext, basic string) string {
			if extended {
				return ext
			}
			return basic
		}
		pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved,
			url.Values{"order_id": {"ord-7"}, "attr_realm": {"eu"}}))
		if extended {
			require.Equal(t, "9.71", s.balanceEUR(), "10.00 less the 2.9% fee")
		}

		cb := s.mustTrigger(via, pay, paygatetest.EventChargeback)
		require.NotEqual(t, pay, cb, "a chargeback is a transaction of its own")
		status, original := s.statusOf(pay)
		assert.Equal(t, "charged_back", status)
		assert.Equal(t, "completed", original, "the payment's own status stays")
		v := s.lastCallback()
		assert.Equal(t, "chargeback_completed", v.Get("status"))
		assert.Equal(t, cb, v.Get("id"))
		assert.Equal(t, pay, v.Get("reference_id"))
		assert.Equal(t, money("10.00", "10"), v.Get("amount"))
		assert.Equal(t, money("-10.0000", "-10"), v.Get("earned"))
		assert.Equal(t, "ord-7", v.Get("order_id"))
		assert.Equal(t, "eu", v.Get("attr_realm"), "attributes of the payment")
		assert.Equal(t, extended, v.Has("type"), "the basic form's callbacks have no type")
		cbStatus, _ := s.statusOf(cb)
		assert.Equal(t, "completed", cbStatus)
		if extended {
			assert.Equal(t, "-0.29", s.balanceEUR())
			byID := s.ok("transactions/"+cb, nil)
			assert.Equal(t, "chargeback", byID["type"])
			assert.Equal(t, jsonNumber(pay), byID["referenceId"])
			list := s.ok("transactions", url.Values{"orderId": {"ord-7"}})
			assert.Equal(t, jsonNumber(2), list["totalCount"])
			first := list["transactions"].([]any)[0].(map[string]any)
			assert.Equal(t, "charged_back", first["status"])
			assert.Equal(t, "completed", first["originalStatus"])
		}
		s.fails("transaction/reverse", url.Values{"id": {pay}, "amount": {"1.00"}}, paygate.CodeNotReversible)

		ret := s.mustTrigger(via, cb, paygatetest.EventRetrieval)
		status, original = s.statusOf(pay)
		assert.Equal(t, "retrieved", status)
		assert.Equal(t, "completed", original)
		v = s.lastCallback()
		assert.Equal(t, "retrieval_completed", v.Get("status"))
		assert.Equal(t, ret, v.Get("id"))
		assert.Equal(t, cb, v.Get("reference_id"), "a retrieval references the chargeback")
		assert.Equal(t, money("10.0000", "10"), v.Get("earned"))
		if extended {
			assert.Equal(t, "9.71", s.balanceEUR())
		}

		pen := s.mustTrigger(via, cb, paygatetest.EventPenalty)
		v = s.lastCallback()
		assert.Equal(t, "penalty_completed", v.Get("status"))
		assert.Equal(t, pen, v.Get("id"))
		assert.Equal(t, cb, v.Get("reference_id"))
		assert.Equal(t, money(paygatetest.PenaltyAmount, "15"), v.Get("amount"))
		if extended {
			assert.Equal(t, "-5.29", s.balanceEUR())
		}
	})
}

func TestEvents_ThatDoNotApplyAre409AndChangeNothing(t *testing.T) {
	t.Parallel()
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		u := s.user("buyer")
		failed := idOf(s.charge(u, paygatetest.CardDeclined, nil))
		paid := idOf(s.charge(u, paygatetest.CardApproved, nil))
		processing := idOf(s.charge(u, paygatetest.CardProcessing, nil))
		type misfit struct {
			id string
			e  paygatetest.Event
		}
		cases := []misfit{
			{failed, paygatetest.EventChargeback},
			{paid, paygatetest.EventRetrieval},
			{paid, paygatetest.EventPenalty},
			{paid, paygatetest.EventApprove},
			{paid, paygatetest.EventComplete},
			{paid, paygatetest.EventFail},
			{processing, paygatetest.EventChargeback},
			{processing, paygatetest.EventDecline},
		}
		if form == paygate.FormBasic {
			// Statuses the basic form lacks.
			cases = append(cases, misfit{processing, paygatetest.EventWaitingApproval},
				misfit{processing, paygatetest.EventCancel}, misfit{processing, paygatetest.EventAbandon})
		}
		before := len(s.srv.Deliveries())
		extended := form == paygate.FormExtended
		balance := ""
		if extended {
			balance = s.balanceEUR()
		}
		for _, tc := range cases {
			_, status, code := s.trigger(via, tc.id, tc.e)
			assert.Equal(t, http.StatusConflict, status, "%s of %s", tc.e, tc.id)
			assert.Equal(t, paygate.ErrorCode(40900), code)
		}
		assert.Len(t, s.srv.Deliveries(), before, "no callback")
		if extended {
			assert.Equal(t, balance, s.balanceEUR(), "the balance did not move")
		}
		last, err := strconv.ParseInt(processing, 10, 64)
		require.NoError(t, err)
		s.fails("transaction/status", url.Values{"id": {strconv.FormatInt(last+1, 10)}}, paygate.CodeTransactionNotFound)
		st, _ := s.statusOf(paid)
		assert.Equal(t, "completed", st)
		st, _ = s.statusOf(processing)
		assert.Equal(t, "processing", st)

		s.mustTrigger(via, paid, paygatetest.EventChargeback)
		_, status, _ := s.trigger(via, paid, paygatetest.EventChargeback)
		assert.Equal(t, http.StatusConflict, status, "a second chargeback")

		_, status, code := s.trigger(via, "1000000000000000999", paygatetest.EventChargeback)
		assert.Equal(t, http.StatusNotFound, status)
		assert.Equal(t, paygate.CodeTransactionNotFound, code)
		_, status, code = s.trigger(via, paid, "explode")
		assert.Equal(t, http.StatusNotFound, status)
		assert.Equal(t, paygate.ErrorCode(40400), code)
	}, paygatetest.WithProcessingDelay(0))
}

func TestEvents_WalletPayer(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		for _, tc := range []eventOutcome{
			{paygatetest.EventApprove, "completed", "completed", "12.14"},
			{paygatetest.EventDecline, "failed", "failed", "0.00"},
			{paygatetest.EventAbandon, "abandoned", "", "0.00"},
			{paygatetest.EventWaitingApproval, "waiting_approval", "waiting_approval", "0.00"},
		} {
			t.Run(via+"/"+string(tc.e), func(t *testing.T) {
				s := newSandbox(t)
				id := idOf(s.ok("transaction/create", altPayment()))
				before := len(s.srv.Deliveries())
				assert.Equal(t, id, s.mustTrigger(via, id, tc.e))
				s.checkOutcome(id, "alt-1", before, tc)
			})
		}
	}
}

func TestEvents_WaitingApprovalThenApprovedOrDeclined(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		t.Run(via, func(t *testing.T) {
			// No processing delay: the charges must still be processing when
			// the events apply, however slow the machine.
			s := newSandbox(t, paygatetest.WithProcessingDelay(0))
			u := s.user("buyer")
			a := idOf(s.charge(u, paygatetest.CardProcessing, nil))
			b := idOf(s.charge(u, paygatetest.CardProcessing, nil))
			s.mustTrigger(via, a, paygatetest.EventWaitingApproval)
			s.mustTrigger(via, b, paygatetest.EventWaitingApproval)
			assert.Equal(t, []string{"processing", "waiting_approval"}, statuses(s, a))
			s.clock.Advance(time.Hour)
			st, _ := s.statusOf(a)
			assert.Equal(t, "waiting_approval", st, "waiting for approval does not settle by itself")

			s.mustTrigger(via, a, paygatetest.EventApprove)
			s.mustTrigger(via, b, paygatetest.EventDecline)
			assert.Equal(t, []string{"processing", "waiting_approval", "completed"}, statuses(s, a))
			assert.Equal(t, []string{"processing", "waiting_approval", "failed"}, statuses(s, b))
			assert.Equal(t, "9.71", s.balanceEUR(), "only the approved one")
		})
	}
}

func TestEvents_ProcessingPaymentCompletesOrFailsInBothForms(t *testing.T) {
	t.Parallel()
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		u := s.user("buyer")
		a := idOf(s.charge(u, paygatetest.CardProcessing, nil))
		b := idOf(s.charge(u, paygatetest.CardProcessing, nil))
		s.mustTrigger(via, a, paygatetest.EventComplete)
		s.mustTrigger(via, b, paygatetest.EventFail)
		st, _ := s.statusOf(a)
		assert.Equal(t, "completed", st)
		st, _ = s.statusOf(b)
		assert.Equal(t, "failed", st)
		assert.Equal(t, "completed", statuses(s, a)[len(statuses(s, a))-1])
		assert.Equal(t, "failed", statuses(s, b)[len(statuses(s, b))-1])
	}, paygatetest.WithProcessingDelay(0))
}

func TestEvents_PendingPayout(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		for _, tc := range []eventOutcome{
			{paygatetest.EventComplete, "completed", "payout_completed", "-5.00"},
			{paygatetest.EventFail, "failed", "payout_failed", "0.00"},
			{paygatetest.EventCancel, "cancelled", "payout_cancelled", "0.00"},
			{paygatetest.EventAbandon, "abandoned", "payout_abandoned", "0.00"},
			{paygatetest.EventWaitingApproval, "waiting_approval", "waiting_approval", "-5.00"},
		} {
			t.Run(via+"/"+string(tc.e), func(t *testing.T) {
				s := newSandbox(t, paygatetest.WithProcessingDelay(0))
				id := idOf(s.ok("payout", url.Values{"type": {walletPayout}, "account": {"wallet-1"}, "amount": {"5.00"},
					"currency": {"EUR"}, "phone": {"491701234567"}, "orderId": {"po-1"}}))
				require.Equal(t, "-5.00", s.balanceEUR(), "the amount is reserved at once")
				before := len(s.srv.Deliveries())
				s.mustTrigger(via, id, tc.e)
				s.checkOutcome(id, "po-1", before, tc)
				s.clock.Advance(time.Hour)
				st, _ := s.statusOf(id)
				assert.Equal(t, tc.status, st, "an event's outcome is not overridden by settlement")
			})
		}
	}
}

func TestEvents_PenaltyOfARefund(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		t.Run(via, func(t *testing.T) {
			s := newSandbox(t)
			pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
			refund := idOf(s.ok("transaction/reverse", url.Values{"id": {pay}, "amount": {"4.00"}}))
			pen := s.mustTrigger(via, refund, paygatetest.EventPenalty)
			v := s.lastCallback()
			assert.Equal(t, "penalty_completed", v.Get("status"))
			assert.Equal(t, pen, v.Get("id"))
			assert.Equal(t, refund, v.Get("reference_id"))
			assert.Equal(t, "-9.29", s.balanceEUR(), "9.71 - 4.00 - 15.00")

			cb := s.mustTrigger(via, pay, paygatetest.EventChargeback)
			v = s.lastCallback()
			assert.Equal(t, cb, v.Get("id"))
			assert.Equal(t, "6.00", v.Get("amount"), "a chargeback takes what the refund left")
		})
	}
}

func TestDisputeMethods_AreTriggerShorthands(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	n, err := strconv.ParseInt(idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil)), 10, 64)
	require.NoError(t, err)
	pay := paygate.ID(n)
	cb, err := s.srv.Chargeback(pay)
	require.NoError(t, err)
	ret, err := s.srv.Retrieve(cb)
	require.NoError(t, err)
	pen, err := s.srv.Penalty(cb)
	require.NoError(t, err)
	assert.Equal(t, []paygate.ID{pay + 1, pay + 2, pay + 3}, []paygate.ID{cb, ret, pen})
	_, err = s.srv.Penalty(cb)
	require.ErrorIs(t, err, paygatetest.ErrEventNotApplicable)
}

// A processing charge that asked for recurring payments holds its
// subscription until it settles: when an event ends it without the money
// (failed, declined, cancelled, abandoned), no subscription is left to
// charge the card later.
func TestEvents_AChargeThatEndsUnpaidLeavesNoSubscription(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		for _, e := range []paygatetest.Event{paygatetest.EventFail, paygatetest.EventCancel, paygatetest.EventAbandon} {
			t.Run(via+"/"+string(e), func(t *testing.T) {
				s := newSandbox(t, paygatetest.WithProcessingDelay(0))
				uid := s.user("subscriber")
				pay := idOf(s.charge(uid, paygatetest.CardProcessing, url.Values{"recurring": {"1"}, "recurring_interval": {"1"}}))
				s.mustTrigger(via, pay, e)
				before := len(s.srv.Deliveries())
				s.clock.Advance(3 * day)
				assert.Len(t, s.srv.Deliveries(), before, "no automatic charge")
				s.chargeRecurringFails(uid, paygate.CodeReferenceTransactionNotFound)
			})
		}
	}
	t.Run("completed keeps it", func(t *testing.T) {
		s := newSandbox(t, paygatetest.WithProcessingDelay(0))
		uid := s.user("subscriber")
		pay := idOf(s.charge(uid, paygatetest.CardProcessing, url.Values{"recurring": {"1"}, "recurring_interval": {"1"}}))
		s.mustTrigger("go", pay, paygatetest.EventComplete)
		s.chargeRecurring(uid)
	})
}

// A chargeback, its retrieval and a penalty carry the payment's order id,
// as a refund does; a status look-up by that order id is still the
// payment's, its status showing what the dispute did to it.
func TestEvents_StatusByOrderIDIsThePaymentsAfterADispute(t *testing.T) {
	t.Parallel()
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, url.Values{"order_id": {"ord-9"}}))
		byOrder := func() map[string]any { return s.ok("transaction/status", url.Values{"order_id": {"ord-9"}}) }

		cb := s.mustTrigger(via, pay, paygatetest.EventChargeback)
		out := byOrder()
		assert.Equal(t, pay, idOf(out))
		assert.Equal(t, "charged_back", out["status"])

		s.mustTrigger(via, cb, paygatetest.EventRetrieval)
		s.mustTrigger(via, cb, paygatetest.EventPenalty)
		out = byOrder()
		assert.Equal(t, pay, idOf(out))
		assert.Equal(t, "retrieved", out["status"])
	})
}
