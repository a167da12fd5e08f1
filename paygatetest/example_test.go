package paygatetest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// Start a sandbox, resolve a user with a signed raw request, and read the
// callback the charge produced.
func Example() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	// readJSON decodes the JSON answer of a request into out.
	readJSON := func(resp *http.Response, err error, out any) error {
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return json.NewDecoder(resp.Body).Decode(out)
	}

	v := url.Values{"project": {srv.ProjectKey}, "identifier": {"customer-42"}, "ip": {"192.0.2.1"}}
	v.Set("signature", paygate.Sign(v, srv.PrivateKey))
	resp, err := http.PostForm(srv.URL+"/v1/user/resolve", v)
	var user struct{ ID int64 }
	if err := readJSON(resp, err, &user); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("user id:", user.ID)

	tok, err := http.Get(srv.URL + "/v1/card/getToken?" + url.Values{"project": {srv.ProjectKey},
		"number": {paygatetest.CardApproved}, "expiration_month": {"12"}, "expiration_year": {"2099"},
		"security_code": {"123"}}.Encode())
	var token struct{ ID string }
	if err := readJSON(tok, err, &token); err != nil {
		fmt.Println(err)
		return
	}

	charge := url.Values{"project": {srv.ProjectKey}, "user": {fmt.Sprint(user.ID)}, "card_token": {token.ID},
		"price": {"19.90"}, "currency": {"EUR"}, "description": {"order 1"}}
	charge.Set("signature", paygate.Sign(charge, srv.PrivateKey))
	paid, err := http.PostForm(srv.URL+"/v1/card/process", charge)
	var payment struct {
		ID     json.Number
		Status string
	}
	if err := readJSON(paid, err, &payment); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("payment", payment.ID, payment.Status)

	cb := srv.Deliveries()[0].Values
	fmt.Println("callback:", cb.Get("status"), cb.Get("amount"), paygate.VerifySignature(cb, srv.PrivateKey) == nil)
	// Output:
	// user id: 1
	// payment 1000000000000000001 completed
	// callback: completed 19.90 true
}
