package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"net/url"

	"github.com/paygate/paygate-go"
	"github.com/shopspring/decimal"
)

func ExampleCardsService_Tokenize() {
	client := exampleClient()

	// Tokenize in the payer's browser where you can: the card then never
	// reaches your server, and the query string that carries it (the
	// gateway's design) never passes through your proxies and their logs.
	// Servers and tests can tokenize too; CardNumber and SecurityCode
	// redact themselves in logs and errors.
	token, err := client.Cards.Tokenize(context.Background(), &paygate.TokenizeParams{
		Number:          "4242424242424242",
		ExpirationMonth: 12,
		ExpirationYear:  2030,
		SecurityCode:    "123",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(token.ID, token.Card.Mask, token.ExpiresAt)
	// Output:
	// tmp_0000000000000002 ************4242 2026-11-23 09:10:00 +0000 UTC
}

func ExampleCardsService_Charge() {
	client := exampleClient()

	mux := http.NewServeMux()
	// The checkout handler charges the token the browser sent and, when the
	// card is enrolled in 3-D Secure, sends the payer on to the bank.
	mux.HandleFunc("POST /checkout", func(w http.ResponseWriter, r *http.Request) {
		payment, err := client.Cards.Charge(r.Context(), &paygate.ChargeParams{
			User:        customerOf(r),
			CardToken:   r.PostFormValue("card_token"),
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
	payerPosts(mux, "/checkout", url.Values{"card_token": {exampleToken("4000000000003220")}})
	// Output:
	// 200 page with a form posting to /acs
}

func ExampleCardsService_Authenticate() {
	client := exampleClient()

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

	// Serve mux as usual, for example with http.ListenAndServe. Here the
	// payer's browser comes back from the bank.
	payerReturnsFromACS(mux, "/orders/ord-20261122-0003/3ds-return", "ord-20261122-0003")
	// Output:
	// 200 paid ord-20261122-0003
}

func ExampleCardsService_ChargeRecurring() {
	client := exampleClient()

	payment, err := client.Cards.ChargeRecurring(context.Background(), &paygate.ChargeRecurringParams{
		User:        subscriberID(),
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
	client := exampleClient()

	// A merchant page of its own can embed the self-submitting form.
	page := template.Must(template.New("3ds").Parse(
		`<!DOCTYPE html><html><body><h1>Shop</h1><p>Redirecting to your bank...</p>{{.}}</body></html>`))

	mux := http.NewServeMux()
	mux.HandleFunc("POST /pay", func(w http.ResponseWriter, r *http.Request) {
		payment, err := client.Cards.Charge(r.Context(), &paygate.ChargeParams{
			User:        customerOf(r),
			CardToken:   r.PostFormValue("card_token"),
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
	payerPosts(mux, "/pay", url.Values{"card_token": {exampleToken("4000000000003220")}})
	// Output:
	// 200 page with a form posting to /acs
}
