package paygatetest_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

func TestFixtures_TheExampleMakesEveryEntry(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("testdata/fixtures/example.json")
	require.NoError(t, err)
	for _, via := range drivers {
		t.Run(via, func(t *testing.T) {
			s := newSandbox(t)
			ids := map[string]map[string]any{}
			if via == "go" {
				got, err := s.srv.LoadFixtures(bytes.NewReader(example))
				require.NoError(t, err)
				ids = map[string]map[string]any{"users": anyMap(got.Users), "transactions": anyMap(got.Transactions), "cards": anyMap(got.Cards)}
			} else {
				status, raw := s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json", string(example), s.srv.PrivateKey)
				require.Equal(t, http.StatusOK, status, string(raw))
				for k, v := range decode(t, raw) {
					ids[k] = v.(map[string]any)
				}
			}
			tx := func(name string) string { return ids["transactions"][name].(string) }
			status := func(name string) any { st, _ := s.statusOf(tx(name)); return st }
			assert.Equal(t, "completed", status("paid"))
			assert.Equal(t, "failed", status("declined"))
			assert.Equal(t, "completed", status("pending"), "settled by the last step")
			assert.Equal(t, "charged_back", status("disputed"))
			assert.Equal(t, "completed", status("chargeback"))
			assert.Equal(t, "completed", status("refunded"), "a partial refund leaves it completed")
			assert.Equal(t, "completed", status("partial-refund"))
			assert.Equal(t, "completed", status("payout"))
			assert.Equal(t, testStart.Add(time.Hour), s.clock.Now())
			assert.Equal(t, "completed", s.chargeRecurring(ids["users"]["alice"].(string))["status"], "alice subscribed")
			again := s.ok("card/process", url.Values{"user": {ids["users"]["alice"].(string)},
				"card_token": {ids["cards"]["alice-visa"].(string)}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}})
			assert.Equal(t, "completed", again["status"], "the remembered card charges")
			assert.Equal(t, "customer-42", s.ok("transactions/"+tx("declined"), nil)["user"].(map[string]any)["identifier"])
		})
	}
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestFixtures_RefusalsNameTheEntry(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for body, want := range map[string]string{
		`{"payments":[{"user":"nobody"}]}`:                              `payments[0]: no user named "nobody"`,
		`{"users":[{"name":"a"}],"payments":[{"user":"a","card":"1"}]}`: "payments[0]: card/getToken refused: 40004",
		`{"steps":[{"advance":"soon"}]}`:                                "steps[0]: advance must be",
		`{"users":[{"name":"a"},{"name":"a"}]}`:                         `users[1]: the name "a" is taken`,
		`{"pay":[]}`:                                                    "not a fixture file",
	} {
		_, err := s.srv.LoadFixtures(strings.NewReader(body))
		require.True(t, errors.Is(err, paygatetest.ErrFixtures), "%s: %v", body, err)
		assert.Contains(t, err.Error(), want, body)
	}
	s.controlFails(http.MethodGet, "/sandbox/fixtures", nil, 40500)
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json", `{"users":[`, s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 40000)
	status, raw = s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json",
		`{"users":[{"name":"`+strings.Repeat("a", 2<<20)+`"}]}`, s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 41300)
	status, raw = s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json", `{"steps":[{"event":"chargeback","transaction":"x"}]}`, s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 40900)
}

func TestFixtures_WithFixturesLoadsThemAtStart(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithFixtures(strings.NewReader(`{"users":[{"name":"a"}],"payments":[{"name":"p","user":"a"}]}`)))
	st, _ := s.statusOf("1000000000000000001")
	assert.Equal(t, "completed", st)
	_, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithFixtures(strings.NewReader(`{"steps":[{}]}`)))
	require.ErrorIs(t, err, paygatetest.ErrFixtures)
}

// The clock and settlement are the server's: a fixture loaded with
// another project's key neither moves the clock nor settles the server
// project's payments.
func TestFixtures_AnotherProjectsKeyActsWithinItsProject(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithProcessingDelay(0))
	other := teamB
	s.srv.AddProject(other)
	pending := idOf(s.charge(s.user("buyer"), paygatetest.CardProcessing, nil))
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json",
		`{"users":[{"name":"b"}],"payments":[{"name":"p","user":"b","status":"processing"}],"steps":[{"settle":true}]}`, other.Secret.Reveal())
	require.Equal(t, http.StatusOK, status, string(raw))
	st, _ := s.statusOf(pending)
	assert.Equal(t, "processing", st, "the server project's payment is not settled by team B")
	status, raw = s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json", `{"steps":[{"advance":"1h"}]}`, other.Secret.Reveal())
	requireError(t, status, decode(t, raw), 40900)
	assert.Equal(t, testStart, s.clock.Now())
}
