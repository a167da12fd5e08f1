package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// The examples run against the sandbox. Each example's exampleClient starts
// a fresh sandbox (closing the previous example's), so that its ids and
// output are the same on every run, and gives it a small history:
//
//   - user 1 (identifier cust-100452) paid order-1001, 29.99 EUR, with
//     transaction 1000000000000000001, subscribing to manual recurring
//     payments;
//   - the sandbox's clock, frozen at 2026-11-22 09:00 UTC, was then moved
//     on a day, so the next recurring payment is due.
//
// The checkout pages are addressed as https://checkout.example.com, so that
// printed redirect URLs do not depend on the sandbox's port.
var exampleSandbox *paygatetest.Server

// exampleCustomerID is the internal user id of the seeded customer.
const exampleCustomerID paygate.UserID = "1"

// exampleClient returns the client the examples use: a client of a fresh
// sandbox's project.
func exampleClient() *paygate.Client {
	if exampleSandbox != nil {
		exampleSandbox.Close()
	}
	exampleSandbox = paygatetest.NewServer(paygatetest.WithClock(paygatetest.NewClock(sandboxStart)))
	client := exampleSandbox.Client(paygate.WithCheckoutURL("https://checkout.example.com"))
	seedExampleSandbox(client)
	return client
}

// exampleUnreliableClient is exampleClient whose answers to POST requests
// are lost on the way back, after the sandbox acted on them: the case of a
// time-out after the request left.
func exampleUnreliableClient() *paygate.Client {
	exampleClient()
	return exampleSandbox.Client(paygate.WithHTTPClient(&http.Client{Transport: lostAnswers{}}))
}

// customerOf returns the internal user id the shop keeps for the customer
// signed in to r's session.
func customerOf(*http.Request) paygate.UserID { return exampleCustomerID }

// subscriberID returns the internal user id of a customer from the shop's
// subscription records.
func subscriberID() paygate.UserID { return exampleCustomerID }

// exampleToken tokenizes number, as the payer's browser does at checkout.
func exampleToken(number string) string {
	tok, err := exampleSandbox.Client().Cards.Tokenize(context.Background(), &paygate.TokenizeParams{
		Number: paygate.CardNumber(number), ExpirationMonth: 12, ExpirationYear: 2030, SecurityCode: "123",
	})
	if err != nil {
		log.Fatal(err)
	}
	return tok.ID
}

// payerPosts submits form to path of the shop's handler h, as the payer's
// browser does, and prints the answer: its status and either its text or,
// for a page with a form, where the form posts to.
func payerPosts(h http.Handler, path string, form url.Values) {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	if m := formActionAttr.FindSubmatch(body); m != nil {
		action, err := url.Parse(string(m[1]))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Code, "page with a form posting to", strings.TrimPrefix(action.String(), exampleSandbox.URL))
		return
	}
	fmt.Println(rec.Code, strings.TrimSpace(string(body)))
}

// payerReturnsFromACS charges the seeded customer with a card enrolled in
// 3-D Secure, passes the ACS with the right password, and posts what the
// ACS sends back to path of the shop's handler h, as the payer's browser
// does; it prints the answer as payerPosts does. The charge is for order
// orderID.
func payerReturnsFromACS(h http.Handler, path, orderID string) {
	pay, err := exampleSandbox.Client().Cards.Charge(context.Background(), &paygate.ChargeParams{
		User: exampleCustomerID, CardToken: exampleToken(paygatetest.Card3DSecure),
		Price: decimal.RequireFromString("24.90"), Currency: "EUR", Description: "Order " + orderID,
		OrderID: orderID, ACSReturnURL: "https://shop.example" + path,
	})
	if err != nil || !pay.NeedsAuthentication() {
		log.Fatal("charge with 3-D Secure: ", err)
	}
	md := pay.ACS.Parameters.MD
	payerPosts(h, path, url.Values{"PaRes": {exampleSandbox.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}})
}

// seedExampleSandbox gives a fresh sandbox the history described above.
func seedExampleSandbox(client *paygate.Client) {
	ctx := context.Background()
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-100452", IP: "203.0.113.7"})
	if err != nil || user != exampleCustomerID {
		log.Fatalf("seeding the example sandbox: user %q, %v", user, err)
	}
	_, err = client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: user, CardToken: exampleToken(paygatetest.CardApproved), Price: decimal.RequireFromString("29.99"),
		Currency: "EUR", Description: "Order order-1001", OrderID: "order-1001",
		Recurring: true, RecurringInterval: paygate.Days(0),
	})
	if err != nil {
		log.Fatal("seeding the example sandbox: ", err)
	}
	exampleSandbox.Advance(24 * time.Hour)
}

// formActionAttr finds the action of an HTML form.
var formActionAttr = regexp.MustCompile(`<form method="post" action="([^"]*)"`)

// lostAnswers sends a POST to the sandbox and drops the answer.
type lostAnswers struct{}

func (lostAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	resp.Body.Close()
	return nil, errors.New("connection reset by peer")
}
