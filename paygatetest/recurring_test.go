package paygatetest_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

const day = 24 * time.Hour

// recurringCharge is a manual charge of uid's subscription.
func recurringCharge(uid string) url.Values {
	return url.Values{"user": {uid}, "price": {"4.99"}, "currency": {"EUR"}, "order_id": {"r"}}
}

// subscribe charges the approved card for uid, starting recurring payments
// every interval days, and returns the answer.
func (s *sandbox) subscribe(uid, interval string) map[string]any {
	s.t.Helper()
	return s.charge(uid, paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {interval}})
}

// chargeRecurring makes a manual charge of uid's subscription and requires
// HTTP 200.
func (s *sandbox) chargeRecurring(uid string) map[string]any {
	s.t.Helper()
	return s.ok("card/processRecurring", recurringCharge(uid))
}

// chargeRecurringFails makes a manual charge of uid's subscription and
// requires the error object with code.
func (s *sandbox) chargeRecurringFails(uid string, code paygate.ErrorCode) {
	s.t.Helper()
	s.fails("card/processRecurring", recurringCharge(uid), code)
}

func TestRecurring_ChargeReturnsTheSubscription(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	out := s.subscribe(s.user("u"), "30")
	assert.Equal(t, map[string]any{"frequency": jsonNumber(30), "endsAt": testStart.Add(365 * day).Format(time.RFC3339)}, out["recurring"])
}

func TestRecurring_FrequencyIsTheIntervalAndZeroForIntervalZero(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	out := s.subscribe(s.user("m"), "0")
	assert.Equal(t, jsonNumber(0), out["recurring"].(map[string]any)["frequency"])
	out = s.charge(s.user("w"), paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {"7"}, "recurring_trial": {"30"}})
	assert.Equal(t, jsonNumber(7), out["recurring"].(map[string]any)["frequency"])
}

func TestRecurring_FirstManualChargeMayFollowTheSubscribingChargeAtOnce(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	first := s.subscribe(uid, "7")
	out := s.chargeRecurring(uid)
	assert.Equal(t, true, out["success"])
	assert.Equal(t, "completed", out["status"])
	assert.Equal(t, "4.99", out["price"])
	assert.Equal(t, jsonNumber(idOf(first)), out["referenceId"])
	assert.NotContains(t, out, "acs")
}

func TestRecurring_ManualChargesCloserThanTheFrequencyAre40502(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	s.subscribe(uid, "7")
	s.chargeRecurring(uid)
	s.chargeRecurringFails(uid, paygate.CodeRecurringTooFrequent)
	s.clock.Advance(6 * day)
	s.chargeRecurringFails(uid, paygate.CodeRecurringTooFrequent)
	s.clock.Advance(day)
	s.chargeRecurring(uid)
	s.chargeRecurringFails(uid, paygate.CodeRecurringTooFrequent)
}

func TestRecurring_ManualChargesWithIntervalZeroAreNeverTooFrequent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	s.subscribe(uid, "0")
	for range 3 {
		s.chargeRecurring(uid)
	}
	// A frequency set later counts from the last manual charge.
	s.ok("user/changeRecurring", url.Values{"user": {uid}, "interval": {"3"}})
	s.chargeRecurringFails(uid, paygate.CodeRecurringTooFrequent)
	s.clock.Advance(3 * day)
	s.chargeRecurring(uid)
}

func TestRecurring_TrialDoesNotHoldBackManualCharges(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	s.charge(uid, paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {"1"}, "recurring_trial": {"14"}})
	s.chargeRecurring(uid)
	s.clock.Advance(day)
	s.chargeRecurring(uid)
}

func TestRecurring_HugeIntervalsNeverChargeAndAdvanceReturns(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for i, v := range []url.Values{
		{"recurring_interval": {"106752"}},              // just beyond what a time.Duration holds in days
		{"recurring_interval": {"9223372036854775807"}}, // the largest int
		{"recurring_interval": {"1"}, "recurring_trial": {"9223372036854775807"}},
	} {
		uid := s.user(fmt.Sprint("u", i))
		v.Set("recurring", "1")
		v.Set("order_id", fmt.Sprint("huge-", i))
		first := idOf(s.charge(uid, paygatetest.CardApproved, v))
		done := make(chan struct{})
		go func() { s.clock.Advance(400 * day); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Advance did not return with %v", v)
		}
		assert.Empty(t, recurringPayments(t, s, fmt.Sprint("huge-", i), first))
	}
}

func TestRecurring_CancelledIs40310AndExpiredIs40311(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cancelled, expired := s.user("c"), s.user("e")
	s.subscribe(cancelled, "0")
	s.subscribe(expired, "0")
	assert.Equal(t, true, s.ok("user/cancelRecurring", url.Values{"user": {cancelled}})["success"])
	s.clock.Advance(2 * day)
	s.chargeRecurringFails(cancelled, paygate.CodeRecurringDisabled)
	s.chargeRecurring(expired)
	s.clock.Advance(366 * day)
	s.chargeRecurringFails(expired, paygate.CodeRecurringExpired)
}

func TestRecurring_ChangeRecurringSetsANewFrequency(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	s.subscribe(uid, "30")
	s.chargeRecurring(uid)
	out := s.ok("user/changeRecurring", url.Values{"user": {uid}, "interval": {"2"}, "price": {"9.99"}, "currency": {"EUR"}})
	assert.Equal(t, map[string]any{"success": true}, out)
	s.clock.Advance(30 * day)
	s.chargeRecurring(uid)
	s.clock.Advance(day)
	s.chargeRecurringFails(uid, paygate.CodeRecurringTooFrequent)
	s.clock.Advance(day)
	s.chargeRecurring(uid)

	s.ok("user/changeRecurring", url.Values{"user": {uid}, "interval": {"0"}})
	s.chargeRecurring(uid)
}

func TestRecurring_ChangeAndCancelWithoutASubscriptionSucceed(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	plain := s.user("plain")
	assert.Equal(t, map[string]any{"success": true}, s.ok("user/changeRecurring", url.Values{"user": {plain}, "interval": {"3"}}))
	assert.Equal(t, map[string]any{"success": true}, s.ok("user/cancelRecurring", url.Values{"user": {plain}}))
	s.chargeRecurringFails(plain, paygate.CodeReferenceTransactionNotFound)
}

func TestRecurring_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	plain := s.user("plain")
	for _, tc := range []struct {
		name   string
		method string
		v      url.Values
		code   paygate.ErrorCode
	}{
		{"no subscription is 40405", "card/processRecurring", recurringCharge(plain), paygate.CodeReferenceTransactionNotFound},
		{"unknown user is 40406", "card/processRecurring", recurringCharge("42"), paygate.CodeUserNotFound},
		{"no user is 40002", "card/processRecurring", url.Values{"price": {"1"}, "currency": {"EUR"}}, paygate.CodeUserIdentifierMissing},
		{"no price is 40014", "card/processRecurring", url.Values{"user": {plain}, "currency": {"EUR"}}, paygate.CodeMerchantDataMissing},
		{"change for unknown user is 40406", "user/changeRecurring", url.Values{"user": {"42"}, "interval": {"3"}}, paygate.CodeUserNotFound},
		{"change price without currency is 40014", "user/changeRecurring", url.Values{"user": {plain}, "price": {"3"}}, paygate.CodeMerchantDataMissing},
	} {
		t.Run(tc.name, func(t *testing.T) { s.fails(tc.method, tc.v, tc.code) })
	}
}

func TestRecurring_BasicFormAnswersOnlyTheBasicFields(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
	uid := s.user("u")
	s.subscribe(uid, "1")
	out := s.chargeRecurring(uid)
	require.Contains(t, out, "card")
	assert.Equal(t, true, out["success"])
	assert.NotContains(t, out, "status")
}

// recurringPayments lists the payments referencing the charge ref.
func recurringPayments(t *testing.T, s *sandbox, orderID, ref string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, tx := range s.ok("transactions", url.Values{"orderId": {orderID}, "type": {"payment"}})["transactions"].([]any) {
		if m := tx.(map[string]any); m["referenceId"] == jsonNumber(ref) {
			out = append(out, m)
		}
	}
	return out
}

func TestRecurring_IntervalChargesAutomaticallyAsTheClockMoves(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	first := idOf(s.charge(uid, paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {"7"},
		"recurring_trial": {"10"}, "order_id": {"sub-1"}, "price": {"4.99"}}))
	s.clock.Advance(9 * day)
	assert.Empty(t, recurringPayments(t, s, "sub-1", first), "nothing during the trial")
	s.clock.Advance(day)
	got := recurringPayments(t, s, "sub-1", first)
	require.Len(t, got, 1)
	assert.Equal(t, "4.99", got[0]["price"])
	assert.Equal(t, "completed", got[0]["status"])
	assert.Equal(t, []string{"completed"}, statuses(s, idOf(got[0])), "an automatic payment calls back")

	s.clock.Advance(14 * day)
	assert.Len(t, recurringPayments(t, s, "sub-1", first), 3, "one payment per interval passed")

	s.ok("user/changeRecurring", url.Values{"user": {uid}, "price": {"1.50"}, "currency": {"EUR"}})
	s.clock.Advance(7 * day)
	got = recurringPayments(t, s, "sub-1", first)
	require.Len(t, got, 4)
	assert.Equal(t, "1.50", got[3]["price"])

	s.ok("user/cancelRecurring", url.Values{"user": {uid}})
	s.clock.Advance(30 * day)
	assert.Len(t, recurringPayments(t, s, "sub-1", first), 4, "a cancelled subscription is not charged")
}

func TestRecurring_IntervalZeroAndVerificationChargeNothingByThemselves(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	manual := idOf(s.charge(s.user("m"), paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {"0"}, "order_id": {"m"}}))
	verified := idOf(s.charge(s.user("v"), paygatetest.CardApproved, url.Values{"recurring": {"1"}, "recurring_interval": {"3"},
		"verify_card": {"1"}, "order_id": {"v"}}))
	s.clock.Advance(30 * day)
	assert.Empty(t, recurringPayments(t, s, "m", manual))
	assert.Empty(t, recurringPayments(t, s, "v", verified), "no price yet")
}
