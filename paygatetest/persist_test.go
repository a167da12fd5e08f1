package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// restartable starts sandboxes on one state file, each on a frozen clock
// at testStart, as a process restarted would.
func restartable(t *testing.T, path string, opts ...paygatetest.Option) *sandbox {
	t.Helper()
	return newSandbox(t, append([]paygatetest.Option{paygatetest.WithStateFile(path)}, opts...)...)
}

// view is what a test sees of a sandbox through its API and control
// plane: every transaction, the balance, every callback.
func (s *sandbox) view() (txns map[string]any, balance string, deliveries []map[string]any) {
	s.t.Helper()
	status, out := s.control(http.MethodGet, "/sandbox/transactions?per_page=1000", nil)
	require.Equal(s.t, http.StatusOK, status)
	return out, s.balanceEUR(), s.deliveriesJSON()
}

func TestStateFile_KeepsEverythingAcrossARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	rcv := newReceiver(t, 1)
	first := restartable(t, path, paygatetest.WithCallbackURL(rcv.URL))
	buyer := first.user("buyer")
	remembered := first.charge(buyer, paygatetest.CardApproved, url.Values{"remember": {"1"}, "order_id": {"ord-1"}})
	first.subscribe(first.user("subscriber"), "30")
	disputed := idOf(first.charge(buyer, paygatetest.CardApproved, nil))
	first.ok("payout", url.Values{"type": {cardPayout}, "amount": {"3.00"}, "currency": {"EUR"},
		"account": {paygatetest.CardApproved}, "cardHolder": {"A B"}})
	first.srv.SettlePending()
	_, err := first.srv.Chargeback(paygate.ID(mustInt(t, disputed)))
	require.NoError(t, err)
	first.clock.Advance(2 * time.Hour)
	// Every first attempt made (one of them refused, its retry scheduled),
	// so that nothing is left in flight to differ after the restart.
	require.Eventually(t, func() bool {
		all := first.srv.Deliveries()
		for _, d := range all {
			// A retry already due is queued or in flight: wait for it too.
			if d.Attempts == 0 || (!d.Delivered && !d.NextAttempt.After(first.clock.Now())) {
				return false
			}
		}
		return len(all) == 6
	}, 5*time.Second, 5*time.Millisecond, "six callbacks, each attempted")
	txns, balance, deliveries := first.view()
	first.srv.Close()

	second := restartable(t, path, paygatetest.WithCallbackURL(rcv.URL))
	gotTxns, gotBalance, gotDeliveries := second.view()
	assert.Equal(t, txns, gotTxns, "every transaction")
	assert.Equal(t, balance, gotBalance)
	assert.Equal(t, deliveries, gotDeliveries, "every callback with its attempts")
	assert.Equal(t, testStart.Add(2*time.Hour), second.clock.Now(), "the clock")

	token := remembered["permanentToken"].(string)
	again := second.ok("card/process", url.Values{"user": {buyer}, "card_token": {token}, "price": {"2.00"},
		"currency": {"EUR"}, "description": {"again"}})
	assert.Equal(t, "completed", again["status"], "the remembered card charges")
	assert.Greater(t, idOf(again), idOf(gotTxns["transactions"].([]any)[0].(map[string]any)), "ids go on")
	assert.Equal(t, "completed", second.chargeRecurring(second.user("subscriber"))["status"], "the subscription is there")
	assert.Equal(t, buyer, second.user("buyer"), "users are the same")
}

func TestStateFile_RefusesACorruptOrNewerFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"truncated":                  `{"version":1,"transactions":[`,
		"not JSON":                   "\x00\x01garbage",
		"newer":                      `{"version":99}`,
		"version not first":          `{"next_user":2,"version":1}`,
		"fields out of order":        `{"version":1,"users":[],"next_user":2}`,
		"a field twice":              `{"version":1,"users":[],"users":[]}`,
		"data after the state":       `{"version":1} {}`,
		"a list that is not one":     `{"version":1,"transactions":{}}`,
		"user id beyond the counter": `{"version":1,"next_user":1,"users":[{"id":"1","project":"sandbox-project","identifier":"a"}]}`,
		"token id beyond the counter": `{"version":1,"next_token":1,"tokens":[{"id":"tmp_0000000000000001","project":"sandbox-project",` +
			`"card":{"number":"4242424242424242"}}]}`,
		"a subscription for centuries": `{"version":1,"next_user":2,"users":[{"id":"1","project":"sandbox-project","identifier":"a"}],` +
			`"subscriptions":[{"user":"1","card":{"number":"4242424242424242"},"interval":1,"price":"1",` +
			`"next_auto":"0001-01-01T00:00:00Z","ends_at":"9999-01-01T00:00:00Z"}]}`,
		"unknown project": `{"version":1,"next_transaction":1000000000000000002,"transactions":[{"id":1000000000000000001,"project":"gone",` +
			`"price":"1","currency":"EUR","type":"payment","status":"completed"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			_, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path))
			require.ErrorIs(t, err, paygatetest.ErrStateFile)
			assert.Contains(t, err.Error(), path, "the error names the file")
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, content, string(got), "the file is left as it was")
		})
	}
}

func TestStateFile_IsWrittenSoonAfterAChange(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	s := restartable(t, path)
	id := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	require.Eventually(t, func() bool {
		raw, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		var saved struct {
			Version      int
			Transactions []struct{ ID json.Number }
		}
		return json.Unmarshal(raw, &saved) == nil && saved.Version == 1 &&
			len(saved.Transactions) == 1 && string(saved.Transactions[0].ID) == id
	}, 3*time.Second, 20*time.Millisecond, "written without Close")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "readable by its owner only")
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, json.Unmarshal([]byte(s), &n))
	return n
}

// WithFixtures seeds a new state only: a restored state holds the
// scenario already, with what the tests changed since.
func TestStateFile_FixturesSeedANewStateOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	seed := `{"users":[{"name":"a"}],"payments":[{"user":"a"}]}`
	for range 2 {
		s := restartable(t, path, paygatetest.WithFixtures(strings.NewReader(seed)))
		got, _, _ := s.view()
		assert.Equal(t, jsonNumber(1), got["total"], "one payment, not one per start")
		s.srv.Close()
	}
}

// The state file keeps no card number but the test cards': another card
// keeps what the sandbox reads of it (scheme, last four, behaviour).
func TestStateFile_KeepsNoCardNumberButTheTestCards(t *testing.T) {
	t.Parallel()
	const card = "4539148803436467"
	path := filepath.Join(t.TempDir(), "state.json")
	first := restartable(t, path)
	buyer := first.user("buyer")
	paid := first.charge(buyer, card, url.Values{"remember": {"1"}})
	txns, _, _ := first.view()
	first.srv.Close()

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), card)
	assert.NotContains(t, string(raw), card[6:12], "no middle digits")

	second := restartable(t, path)
	gotTxns, _, _ := second.view()
	assert.Equal(t, txns, gotTxns, "the card as the API shows it: scheme, mask, last four")
	again := second.ok("card/process", url.Values{"user": {buyer}, "card_token": {paid["permanentToken"].(string)},
		"price": {"2.00"}, "currency": {"EUR"}, "description": {"again"}})
	assert.Equal(t, "completed", again["status"], "the remembered card charges as before")
}
