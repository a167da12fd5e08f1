package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func ExampleCardsService_Tokenize() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()

	// Tokenize in the payer's browser where you can: the card then never
	// reaches your server, and the query string that carries it (the
	// gateway's design) never passes through your proxies and their logs.
	// Servers and tests can tokenize too; CardNumber and SecurityCode
	// redact themselves in logs and errors.
	token, err := client.Cards.Tokenize(context.Background(), &paygate.TokenizeParams{
		Number:       paygate.NewCardNumber("4242424242424242"),
		Expiry:       paygate.NewExpiry(12, 2030),
		SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(token.ID, token.Card.Mask, "valid for", time.Until(token.ExpiresAt.Time).Round(time.Minute))
	// Output:
	// tmp_0000000000000001 ************4242 valid for 10m0s
}

func ExampleCardsService_Charge() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// Keep the gateway's user id with the shop's customer record.
	customer, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-100452", IP: "203.0.113.7"})
	if err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	// The checkout handler charges the token the browser sent and, when the
	// card is enrolled in 3-D Secure, sends the payer on to the bank.
	mux.HandleFunc("POST /checkout", func(w http.ResponseWriter, r *http.Request) {
		payment, err := client.Cards.Charge(r.Context(), &paygate.ChargeParams{
			User:        customer,
			CardToken:   paygate.NewCardToken(r.PostFormValue("card_token")),
			Price:       decimal.RequireFromString("24.90"),
			Currency:    "EUR",
			Description: "Order ord-20261122-0001",
			OrderID:     "ord-20261122-0001",
			ThreeDS:     true,
			// One return URL per order: see ExampleCardsService_Authenticate.
			ACSReturnURL: "https://shop.example/orders/ord-20261122-0001/3ds-return",
		})
		switch {
		case errors.Is(err, paygate.ErrCardTokenUsed), errors.Is(err, paygate.ErrCardTokenExpired):
			http.Error(w, "please enter your card again", http.StatusConflict)
			return
		case errors.Is(err, paygate.ErrOutcomeUnknown):
			// The card may have been charged: look the order up, never
			// charge again blindly.
			http.Error(w, "payment pending", http.StatusAccepted)
			return
		case err != nil:
			http.Error(w, "payment failed", http.StatusBadGateway)
			return
		}
		switch {
		case payment.NeedsAuthentication():
			if err := paygate.WriteACSRedirect(w, payment.ACS); err != nil {
				http.Error(w, "payment failed", http.StatusBadGateway)
			}
		case payment.Completed():
			fmt.Fprintln(w, "paid")
		case payment.Failed():
			http.Error(w, "payment declined", http.StatusPaymentRequired)
		default:
			fmt.Fprintln(w, "payment processing; we will confirm by e-mail")
		}
	})

	// Serve mux as usual, for example with http.ListenAndServe. Here the
	// payer's browser posts the token of a card enrolled in 3-D Secure.
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.Card3DSecure), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/checkout", strings.NewReader(url.Values{"card_token": {token.ID}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, "form posting to the bank:", strings.Contains(rec.Body.String(), `action="`+srv.URL+`/acs"`))
	// Output:
	// 200 form posting to the bank: true
}

func ExampleCardsService_Authenticate() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()

	mux := http.NewServeMux()
	// The ACS return URL given in the charge (one per order) receives the
	// payer back from the bank with PaRes and MD, which complete the
	// payment. Anyone can post another order's PaRes and MD here: bind the
	// return to this order, so that the SDK refuses a return that belongs
	// to another payment and reports a repeated one as the payment stands.
	mux.HandleFunc("POST /orders/{order}/3ds-return", func(w http.ResponseWriter, r *http.Request) {
		params, err := paygate.ReadACSReturn(r)
		if err != nil {
			http.Error(w, "bad 3-D Secure return", http.StatusBadRequest)
			return
		}
		params.OrderID = r.PathValue("order")
		// params.PaymentID = the payment id Charge returned, kept with the order
		payment, err := client.Cards.Authenticate(r.Context(), params)
		switch {
		case errors.Is(err, paygate.ErrACSReturnMismatch):
			http.Error(w, "this verification belongs to another payment", http.StatusBadRequest)
			return
		case err != nil:
			http.Error(w, "payment failed", http.StatusBadGateway)
			return
		}
		if payment.Completed() {
			fmt.Fprintln(w, "paid", payment.OrderID)
			return
		}
		fmt.Fprintln(w, "payment", payment.ID, "is", payment.Status)
	})

	// Serve mux as usual, for example with http.ListenAndServe. Here a
	// card enrolled in 3-D Secure is charged for order ord-20261122-0003,
	// the payer passes the bank's check, and the browser comes back with
	// what the bank sent.
	ctx := context.Background()
	customer, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-100452", IP: "203.0.113.7"})
	if err != nil {
		log.Fatal(err)
	}
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.Card3DSecure), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal(err)
	}
	charged, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: customer, CardToken: paygate.NewCardToken(token.ID), Price: decimal.RequireFromString("24.90"), Currency: "EUR",
		Description: "Order ord-20261122-0003", OrderID: "ord-20261122-0003",
		ACSReturnURL: "https://shop.example/orders/ord-20261122-0003/3ds-return",
	})
	if err != nil {
		log.Fatal(err)
	}
	md := charged.ACS.Parameters.MD
	back := url.Values{"PaRes": {srv.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}}
	req := httptest.NewRequest(http.MethodPost, "/orders/ord-20261122-0003/3ds-return", strings.NewReader(back.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	// Output:
	// 200 paid ord-20261122-0003
}

func ExampleCardsService_ChargeRecurring() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	subscriber := seedCustomer(srv) // paid yesterday, subscribing to recurring payments

	payment, err := client.Cards.ChargeRecurring(context.Background(), &paygate.ChargeRecurringParams{
		User:        subscriber,
		Price:       decimal.RequireFromString("9.99"),
		Currency:    "EUR",
		OrderID:     "sub-100452-2026-12",
		Description: "Monthly plan, December",
	})
	if errors.Is(err, paygate.ErrRecurringTooFrequent) {
		fmt.Println("too soon after the last payment")
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(payment.ID, payment.Status)
	// Output:
	// 1000000000000000002 completed
}

func ExampleACS_RedirectForm() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// Keep the gateway's user id with the shop's customer record.
	customer, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-100452", IP: "203.0.113.7"})
	if err != nil {
		log.Fatal(err)
	}

	// A merchant page of its own can embed the self-submitting form.
	page := template.Must(template.New("3ds").Parse(
		`<!DOCTYPE html><html><body><h1>Shop</h1><p>Redirecting to your bank...</p>{{.}}</body></html>`))

	mux := http.NewServeMux()
	mux.HandleFunc("POST /pay", func(w http.ResponseWriter, r *http.Request) {
		payment, err := client.Cards.Charge(r.Context(), &paygate.ChargeParams{
			User:        customer,
			CardToken:   paygate.NewCardToken(r.PostFormValue("card_token")),
			Price:       decimal.RequireFromString("129.00"),
			Currency:    "EUR",
			Description: "Order ord-20261122-0002",
			OrderID:     "ord-20261122-0002",
			// Where the bank sends the payer back (see
			// ExampleCardsService_Authenticate).
			ACSReturnURL: "https://shop.example/orders/ord-20261122-0002/3ds-return",
		})
		if err != nil {
			http.Error(w, "payment failed", http.StatusBadGateway)
			return
		}
		if !payment.NeedsAuthentication() {
			fmt.Fprintln(w, "status:", payment.Status)
			return
		}
		form, err := payment.ACS.RedirectForm()
		if err != nil {
			http.Error(w, "payment failed", http.StatusBadGateway)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if err := page.Execute(w, form); err != nil {
			log.Print(err)
		}
	})

	// Serve mux as usual, for example with http.ListenAndServe. Here the
	// payer's browser posts the token of a card enrolled in 3-D Secure.
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.Card3DSecure), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/pay", strings.NewReader(url.Values{"card_token": {token.ID}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, "form posting to the bank:", strings.Contains(rec.Body.String(), `action="`+srv.URL+`/acs"`))
	// Output:
	// 200 form posting to the bank: true
}
