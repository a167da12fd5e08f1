package paygate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCharge_ThreeDSWithoutACSReturnURLIsRejected(t *testing.T) {
	requireRejectedLocally(t, "acs_return_url", func(c *Client) error {
		return errOf(c.Cards.Charge(context.Background(), &ChargeParams{User: "1", CardToken: NewCardToken("tok"),
			Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", ThreeDS: true}))
	})
}

func TestWriteACSRedirect_RefusesAnEmptyTermUrl(t *testing.T) {
	w := httptest.NewRecorder()
	err := WriteACSRedirect(w, &ACS{URL: "https://acs.bank.example/pareq", Parameters: ACSParameters{PaReq: "p", MD: "m"}})
	require.ErrorContains(t, err, "TermUrl")
	assert.Zero(t, w.Body.Len(), "nothing is written")
	assert.Empty(t, w.Header().Get("Content-Type"))
}

// A repeated return can race the first: the gateway answers 40501, and the
// bound Authenticate reports where the payment stands.
func TestAuthenticate_BoundReturnThatRacedReportsTheCurrentStatus(t *testing.T) {
	c, mock := newMockClient(t)
	lookups := 0
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transaction/status", func(*http.Request) (*http.Response, error) {
		lookups++
		status := "authenticating"
		if lookups > 1 {
			status = "completed"
		}
		return httpmock.NewStringResponse(200, `{"id":9007199254740993,"order_id":"order-1001","price":"10.00","fee":"0.2900",`+
			`"currency":"EUR","type":"payment","status":"`+status+`","original_status":"`+status+`",`+
			`"created_at":"2026-11-20T09:14:03+00:00","updated_at":"2026-11-20T09:14:09+00:00"}`), nil
	})
	record(t, mock, http.MethodPost, "card/authenticate", fixtureResponder(t, 405, "error_transaction_completed.json"))
	pay, err := c.Cards.Authenticate(context.Background(), &AuthenticateParams{PaRes: NewACSData("eJxVUttugkAQ"), MD: NewACSData("a1b2c3"), PaymentID: 9007199254740993, OrderID: "order-1001"})
	require.NoError(t, err)
	assert.Equal(t, ID(9007199254740993), pay.ID)
	assert.True(t, pay.Completed())
	assert.Equal(t, 2, lookups)
}

func TestAuthenticate_BoundWithInvalidParamsSendsNothing(t *testing.T) {
	requireRejectedLocally(t, "MD", func(c *Client) error {
		return errOf(c.Cards.Authenticate(context.Background(), &AuthenticateParams{PaRes: NewACSData("x"), PaymentID: 5}))
	})
}
