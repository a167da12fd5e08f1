package paygateotel_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

// debugLogger logs everything to buf, without times and durations, whose
// digits could pass for a security code.
func debugLogger(buf *cmdtest.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Value.Kind() == slog.KindDuration {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// exported lists every string the observer exported: span names, status
// descriptions, event names, every attribute key and string value of
// spans, events and metric points.
func (r *recorded) exported(t *testing.T) []string {
	var out []string
	add := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			out = append(out, string(kv.Key), kv.Value.String())
		}
	}
	for _, s := range r.spans.Ended() {
		out = append(out, s.Name(), s.Status().Description)
		add(s.Attributes())
		for _, e := range s.Events() {
			out = append(out, e.Name)
			add(e.Attributes)
		}
	}
	for name, data := range r.metrics(t) {
		out = append(out, name)
		switch d := data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				add(p.Attributes.ToSlice())
			}
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				add(p.Attributes.ToSlice())
			}
		default:
			t.Fatalf("metric %s of unexpected type %T", name, data)
		}
	}
	return out
}

func TestNothingSecretIsExported(t *testing.T) {
	const (
		number       = "5555555555554444"
		securityCode = "0358"
	)
	rec := newRecorded(t)
	var logs cmdtest.Buffer
	h, err := callback.NewHandler([]string{paygatetest.DefaultPrivateKey},
		func(context.Context, *callback.Callback) error { return nil },
		callback.WithObserver(rec.obs), callback.WithLogger(debugLogger(&logs)))
	require.NoError(t, err)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	srv := newSandbox(t, nil, paygatetest.WithCallbackURL(hs.URL), paygatetest.WithCardRemembering(true))
	client := srv.Client(paygate.WithObserver(rec.obs), paygate.WithLogger(debugLogger(&logs)))
	ctx := testCtx(t)

	// A card charged as it is, and remembered: the answer carries a
	// permanent token.
	p := cardCharge(number, "ord-s1")
	p.Card.SecurityCode = paygate.NewSecurityCode(securityCode)
	p.Remember = true
	paid, err := client.Cards.Charge(ctx, p)
	require.NoError(t, err)
	require.NotEmpty(t, paid.PermanentToken)

	// A temporary token, charged.
	tok, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(number), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode(securityCode),
	})
	require.NoError(t, err)
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-s2", Email: "s2@example.com", IP: "203.0.113.7"})
	require.NoError(t, err)
	_, err = client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID),
		Price: decimal.RequireFromString("5.00"), Currency: "EUR", Description: "s2", OrderID: "ord-s2"})
	require.NoError(t, err)

	// 3-D Secure, with its PaRes and MD.
	pay, err := client.Cards.Charge(ctx, cardCharge(paygatetest.Card3DSecure, "ord-s3"))
	require.NoError(t, err)
	md := pay.ACS.Parameters.MD
	paRes := srv.PaRes(md, paygatetest.ACSPassword)
	_, err = client.Cards.Authenticate(ctx, &paygate.AuthenticateParams{PaRes: paygate.NewACSData(paRes), MD: paygate.NewACSData(md), PaymentID: pay.ID, OrderID: "ord-s3"})
	require.NoError(t, err)

	// A refused and a forged callback, logged.
	_, err = client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID), Price: decimal.RequireFromString("1"), Currency: "EURO"})
	require.Error(t, err)
	forged := paygatetest.NewCallbackSigner("sk_forger", paygate.FormExtended).Body(callback.Completed, nil)
	resp, err := http.Post(hs.URL, "application/x-www-form-urlencoded", strings.NewReader(forged))
	require.NoError(t, err)
	resp.Body.Close()
	_, err = srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool { return d.Values.Get("order_id") == "ord-s3" && d.Delivered })
	require.NoError(t, err)

	secrets := map[string]string{
		"card number":     number,
		"3-D Secure card": paygatetest.Card3DSecure,
		"security code":   securityCode,
		"expiry":          "2030",
		"temporary token": tok.ID,
		"permanent token": paid.PermanentToken,
		"PaRes":           paRes,
		"MD":              md,
		"private key":     srv.PrivateKey,
	}
	exported := rec.exported(t)
	require.NotEmpty(t, rec.ended("card/process"))
	require.NotEmpty(t, rec.ended("paygate callback"))
	require.NotEmpty(t, logs.String())
	for what, secret := range secrets {
		for _, s := range exported {
			assert.NotContains(t, s, secret, "the %s is exported", what)
		}
		assert.NotContains(t, logs.String(), secret, "the %s is logged", what)
	}
}
