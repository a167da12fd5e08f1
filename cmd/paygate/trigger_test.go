package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestTrigger_ChargebackReachesAHandlerThatConfirmsIt(t *testing.T) {
	t.Parallel()
	receiver := newCallbackReceiver(t)
	base := startSandbox(t, "--callback-url", receiver.URL)
	receiver.confirmAgainst(t, base)

	r := paygateCmd(t, sandboxEnv(base), "", "trigger", "chargeback", "--json")
	require.Zero(t, r.code, "stderr: %s", r.stderr)
	var chargeback map[string]any
	decodeJSON(t, r.stdout, &chargeback)
	assert.Equal(t, "chargeback", chargeback["type"])

	cb := receiver.next(t, callback.ChargebackCompleted)
	assert.Equal(t, cb.ID.String(), chargeback["id"], "the callback is about the chargeback the command made; an id is a JSON string")
	assert.Equal(t, cb.ReferenceID.String(), chargeback["referenceId"], "every id is a JSON string")
}

// trigger waits for the first attempt of each callback the event made and
// prints what the receiver answered: exit 3 when it did not accept one.
func TestTrigger_ReportsEachCallbacksDelivery(t *testing.T) {
	t.Parallel()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "handler down", http.StatusInternalServerError)
	}))
	t.Cleanup(refusing.Close)
	base := startSandbox(t, "--callback-url", refusing.URL)
	env := sandboxEnv(base)

	r := paygateCmd(t, env, "", "trigger", "chargeback")
	assert.Equal(t, exitFailed, r.code, "stdout: %s stderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "chargeback_completed")
	assert.Contains(t, r.stdout, "HTTP 500", "the receiver's answer")
	assert.Contains(t, r.stderr, "not accepted")

	r = paygateCmd(t, env, "", "trigger", "chargeback", "--json")
	assert.Equal(t, exitFailed, r.code)
	var out struct {
		ID        string
		Callbacks []struct {
			ID        string
			Delivered bool
			Attempts  []attempt
		}
	}
	decodeJSON(t, r.stdout, &out)
	require.Len(t, out.Callbacks, 1, r.stdout)
	assert.False(t, out.Callbacks[0].Delivered)
	require.Len(t, out.Callbacks[0].Attempts, 1)
	assert.Equal(t, http.StatusInternalServerError, out.Callbacks[0].Attempts[0].Status)

	receiver := newCallbackReceiver(t)
	require.Zero(t, paygateCmd(t, env, "", "callback-url", receiver.URL).code)
	r = paygateCmd(t, env, "", "trigger", "chargeback")
	assert.Zero(t, r.code, "stdout: %s stderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "HTTP 200")

	require.Zero(t, paygateCmd(t, env, "", "callback-url", "--none").code)
	r = paygateCmd(t, env, "", "trigger", "chargeback")
	assert.Zero(t, r.code, "stdout: %s stderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "no callback URL: callbacks are recorded only")
}

func TestTrigger_ToURLSendsACallbackTheSDKVerifies(t *testing.T) {
	t.Parallel()
	receiver := newCallbackReceiver(t) // no client: verification only, no sandbox

	r := paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, "", "trigger", "completed", "--to", receiver.URL,
		"--set", "order_id=order-cli-1", "--json")
	require.Zero(t, r.code, "stderr: %s", r.stderr)
	cb := receiver.next(t, callback.Completed)
	assert.Equal(t, "order-cli-1", cb.OrderID)
	assert.Equal(t, paygatetest.CallbackID, cb.ID)

	var sent callbackSent
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sent), r.stdout)
	assert.Equal(t, http.StatusOK, sent.HTTPStatus)
}

func TestTrigger_ToURLWithAnotherKeyIsRefusedWithExitCode3(t *testing.T) {
	t.Parallel()
	receiver := newCallbackReceiver(t)
	r := paygateCmd(t, []string{"PAYGATE_SECRET=another-key"}, "", "trigger", "payout_completed", "--to", receiver.URL)
	assert.Equal(t, exitFailed, r.code, "stdout: %s stderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "HTTP 403")
}

func TestTrigger_ListNamesEveryEventAndCallbackStatus(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "trigger", "--list", "--json")
	require.Zero(t, r.code, r.stderr)
	var got triggers
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, paygatetest.Events, got.Events)
	assert.Equal(t, callback.Statuses(), got.Statuses)
}

func TestTrigger_UnknownEventIsAUsageError(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, sandboxEnv("http://127.0.0.1:1"), "", "trigger", "refund")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "paygate trigger --list")
	r = paygateCmd(t, []string{"PAYGATE_SECRET=k"}, "", "trigger", "chargeback", "--to", "http://127.0.0.1:1/")
	assert.Equal(t, exitUsage, r.code, "an event is not a callback status")
}

// Every event applies to what trigger makes for it, and each makes its
// callback.
func TestTrigger_EveryEventAppliesToWhatItMakes(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	for _, e := range paygatetest.Events {
		r := paygateCmd(t, sandboxEnv(base), "", "trigger", string(e), "--json")
		assert.Zero(t, r.code, "trigger %s: %s", e, r.stderr)
	}
}

func TestDeliveries_ListsEachAttemptAndRedelivers(t *testing.T) {
	t.Parallel()
	receiver := newCallbackReceiver(t)
	base := startSandbox(t, "--callback-url", receiver.URL)
	env := sandboxEnv(base)
	require.Zero(t, paygateCmd(t, env, "", "trigger", "chargeback").code)
	receiver.next(t, callback.ChargebackCompleted)

	var all []delivery
	require.Eventually(t, func() bool {
		r := paygateCmd(t, env, "", "deliveries", "--json")
		require.Zero(t, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &all), r.stdout)
		return len(all) == 2 && all[1].Delivered
	}, wait, 100*time.Millisecond)
	assert.Equal(t, "chargeback_completed", all[1].Fields["status"])
	require.NotEmpty(t, all[1].Attempts)
	assert.Equal(t, http.StatusOK, all[1].Attempts[0].Status)

	r := paygateCmd(t, env, "", "redeliver", "2")
	require.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, "delivery 2")
	assert.Contains(t, r.stdout, "HTTP 200", "what the new attempt got")
	assert.NotContains(t, r.stdout, "queued", "the attempt was made already")
}
