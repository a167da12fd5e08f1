package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

// gateway is a sandbox in form whose callbacks are only recorded, and a
// client of its project.
func gateway(t *testing.T, form paygate.Form) (*paygatetest.Server, *paygate.Client) {
	t.Helper()
	srv := paygatetest.NewServer(paygatetest.WithForm(form))
	t.Cleanup(srv.Close)
	return srv, srv.Client()
}

// charge charges the approved card price EUR for orderID and returns the
// payment's id.
func charge(t *testing.T, client *paygate.Client, orderID, price string) paygate.ID {
	t.Helper()
	ctx := context.Background()
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-" + orderID, Email: orderID + "@example.com", IP: "203.0.113.7"})
	require.NoError(t, err)
	tok, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	pay, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: user, CardToken: paygate.NewCardToken(tok.ID), Price: decimal.RequireFromString(price), Currency: "EUR", Description: "Order " + orderID, OrderID: orderID,
	})
	require.NoError(t, err)
	return pay.ID
}

// refund reverses all of payment id.
func refund(t *testing.T, client *paygate.Client, id paygate.ID, price string) {
	t.Helper()
	_, err := client.Transactions.Reverse(context.Background(), &paygate.ReverseParams{ID: id, Amount: decimal.RequireFromString(price)})
	require.NoError(t, err)
}

// delivered returns the sandbox's callback with status about id (its id,
// or for a refund or a dispute its reference_id).
func delivered(t *testing.T, srv *paygatetest.Server, id paygate.ID, status callback.Status) url.Values {
	t.Helper()
	for _, d := range srv.Deliveries() {
		v := d.Values
		if v.Get("status") == string(status) && (v.Get("id") == id.String() || v.Get("reference_id") == id.String()) {
			return v
		}
	}
	t.Fatalf("no %s callback about %s", status, id)
	return nil
}

func swapped(v url.Values, a, b string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out[a], out[b] = out[b], out[a]
	return out
}

// TestHandler_Contract checks the receiver's answers and output against
// the contract in its package documentation, with callbacks the sandbox
// made and a client of the sandbox confirming them.
func TestHandler_Contract(t *testing.T) {
	srv, client := gateway(t, paygate.FormExtended)
	var out, diag bytes.Buffer
	h, err := newHandler(srv.PrivateKey, client, &out, &diag)
	require.NoError(t, err)
	signer := paygatetest.NewCallbackSigner(srv.PrivateKey, paygate.FormExtended)

	paid := charge(t, client, "ord-paid", "25.00")
	refunded := charge(t, client, "ord-refunded", "30.00")
	refund(t, client, refunded, "30.00")
	stale := charge(t, client, "ord-stale", "35.00")
	refund(t, client, stale, "35.00")
	disputed := charge(t, client, "ord-disputed", "40.00")
	chargeback, err := srv.Chargeback(disputed)
	require.NoError(t, err)
	refundCB := delivered(t, srv, refunded, callback.RefundCompleted)

	steps := []struct {
		name     string
		req      *http.Request
		wantCode int
		wantBody string
		wantLine string // printed by this step, if any
	}{
		{"confirmed callback", post(delivered(t, srv, paid, callback.Completed)), 200, "OK", "callback id=" + paid.String() + " status=completed"},
		{"repeat is acknowledged, not processed", post(delivered(t, srv, paid, callback.Completed)), 200, "OK", ""},
		{"id and reference_id swapped is refused", post(swapped(refundCB, "id", "reference_id")), 500, "", ""},
		{"the genuine refund after it is processed", post(refundCB), 200, "OK", "callback id=" + refundCB.Get("id") + " status=refund_completed"},
		{"a later status of a transaction", post(delivered(t, srv, stale, callback.RefundCompleted)), 200, "OK",
			"callback id=" + delivered(t, srv, stale, callback.RefundCompleted).Get("id") + " status=refund_completed"},
		{"an earlier one after it is stale: acknowledged, not processed", post(delivered(t, srv, stale, callback.Completed)), 200, "OK", ""},
		{"the payment's completed, delivered late, after the chargeback: superseded, acknowledged, not processed",
			post(delivered(t, srv, disputed, callback.Completed)), 200, "OK", ""},
		{"chargeback", post(delivered(t, srv, chargeback, callback.ChargebackCompleted)), 200, "OK", "callback id=" + chargeback.String() + " status=chargeback_completed"},
		{"signed, but no such transaction", signer.Request("/", callback.Completed, nil), 500, "", ""},
		{"missing signature", unsigned(signer.Values(callback.Failed, nil)), 403, "", ""},
		{"wrong signature", paygatetest.NewCallbackSigner("sk_other", paygate.FormExtended).Request("/", callback.Failed, nil), 403, "", ""},
		{"empty body", postBody(""), 403, "", ""},
		{"id not numeric", signer.Request("/", callback.Failed, url.Values{"id": {"abc"}}), 400, "", ""},
		{"id twice", signer.Request("/", callback.Failed, url.Values{"id": {"1", "2"}}), 400, "", ""},
		{"GET", httptest.NewRequest(http.MethodGet, "/", nil), 405, "", ""},
		{"body over 64 KiB", signer.Request("/", callback.Failed, url.Values{"attr_pad": {strings.Repeat("x", callback.MaxBytes)}}), 413, "", ""},
	}
	var wantOut strings.Builder
	for _, st := range steps {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, st.req)
		assert.Equal(t, st.wantCode, w.Code, st.name)
		if st.wantBody != "" {
			assert.Equal(t, st.wantBody, w.Body.String(), st.name)
		}
		if st.wantLine != "" {
			wantOut.WriteString(st.wantLine + "\n")
		}
		assert.Equal(t, wantOut.String(), out.String(), "output after %s", st.name)
	}
	assert.Contains(t, diag.String(), "disagrees with the gateway's record on [reference_id type status]")
	assert.Contains(t, diag.String(), "stale callback acknowledged")
	assert.Contains(t, diag.String(), "level=INFO msg=\"callback acknowledged, not processed: its transaction has moved on since\" id="+disputed.String())
	assert.NotContains(t, diag.String(), "level=ERROR msg=\"paygate callback function failed\" id="+disputed.String())
	assert.NotContains(t, diag.String(), srv.PrivateKey)
}

// A callback that cannot be confirmed because the gateway does not answer
// is answered 500, so that the gateway delivers it again, and not
// processed.
func TestHandler_GatewayUnreachableIs500(t *testing.T) {
	srv, client := gateway(t, paygate.FormExtended)
	values := delivered(t, srv, charge(t, client, "ord-1", "10.00"), callback.Completed)
	srv.Close()
	var out, diag bytes.Buffer
	h, err := newHandler(srv.PrivateKey, client, &out, &diag)
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, post(values))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Empty(t, out.String())
	assert.Contains(t, diag.String(), "confirming callback")
}

func TestRun_WithoutItsEnvironmentFails(t *testing.T) {
	full := map[string]string{"PAYGATE_SECRET": "sk", "PAYGATE_PROJECT": "pk", "PAYGATE_BASE_URL": "http://127.0.0.1:1"}
	for name := range full {
		env := map[string]string{}
		for k, v := range full {
			if k != name {
				env[k] = v
			}
		}
		err := run(context.Background(), nil, func(k string) string { return env[k] }, io.Discard, io.Discard)
		require.Error(t, err)
		assert.Contains(t, err.Error(), name+" not set")
	}
	err := run(context.Background(), []string{"-form", "short"}, func(k string) string { return full[k] }, io.Discard, io.Discard)
	assert.ErrorContains(t, err, "-form must be extended or basic")
}

// The command, run as its contract says against the sandbox, which
// delivers its callbacks to it: every callback is confirmed and printed
// once, in both forms.
func TestRun_ConfirmsTheSandboxsCallbacksUntilCancelled(t *testing.T) {
	for _, form := range []paygate.Form{paygate.FormExtended, paygate.FormBasic} {
		t.Run(form.String(), func(t *testing.T) {
			srv, client := gateway(t, form)
			var stdout, stderr cmdtest.Buffer
			env := map[string]string{"PAYGATE_SECRET": srv.PrivateKey, "PAYGATE_PROJECT": srv.ProjectKey, "PAYGATE_BASE_URL": srv.URL}
			stop := cmdtest.Start(t, func(ctx context.Context) error {
				return run(ctx, []string{"-addr", "127.0.0.1:0", "-form", form.String()}, func(k string) string { return env[k] }, &stdout, &stderr)
			})
			base := cmdtest.URL(t, &stderr)
			require.NoError(t, srv.SetCallbackURL(base+"/paygate/callback"))

			var want strings.Builder
			next := &deliveryCursor{srv: srv}
			// Each callback is awaited before the next change, so that
			// none is stale when it arrives.
			expect := func(status callback.Status) {
				d := next.delivered(t)
				require.Equal(t, string(status), d.Values.Get("status"))
				want.WriteString("callback id=" + d.Values.Get("id") + " status=" + string(status) + "\n")
			}
			pay := charge(t, client, "ord-run", "25.00")
			expect(callback.Completed)
			refund(t, client, pay, "25.00")
			if form == paygate.FormBasic {
				expect(callback.Reversed)
			} else {
				expect(callback.RefundCompleted)
			}
			disputed := charge(t, client, "ord-run-disputed", "40.00")
			expect(callback.Completed)
			chargeback, err := srv.Chargeback(disputed)
			require.NoError(t, err)
			expect(callback.ChargebackCompleted)
			_, err = srv.Retrieve(chargeback)
			require.NoError(t, err)
			expect(callback.RetrievalCompleted)

			require.NoError(t, srv.Redeliver(1), "a repeat")
			_, err = srv.WaitForDelivery(context.Background(), func(d paygatetest.Delivery) bool { return d.Seq == 1 && d.Attempts == 2 })
			require.NoError(t, err)
			d := srv.Deliveries()[0]
			assert.Equal(t, http.StatusOK, d.LastStatus, "the repeat is acknowledged")

			resp, err := http.Get(base + "/")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

			stop()
			assert.Equal(t, want.String(), stdout.String(), "one line per callback, the repeat printed once")
		})
	}
}

// deliveryCursor follows a sandbox's callbacks in the order they were
// made.
type deliveryCursor struct {
	srv *paygatetest.Server
	seq int // the last callback delivered returned
}

// delivered waits for the next callback to be answered, requires a 200,
// and returns it.
func (c *deliveryCursor) delivered(t *testing.T) paygatetest.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.seq++
	d, err := c.srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool { return d.Seq == c.seq && d.Attempts > 0 })
	require.NoError(t, err, "callback %d", c.seq)
	require.True(t, d.Delivered, "callback %d %s answered %d", c.seq, d.Values.Get("status"), d.LastStatus)
	require.Equal(t, http.StatusOK, d.LastStatus)
	return d
}

func unsigned(v url.Values) *http.Request {
	v.Del(paygate.SignatureParam)
	return postBody(v.Encode())
}

func post(v url.Values) *http.Request { return postBody(v.Encode()) }

func postBody(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}
