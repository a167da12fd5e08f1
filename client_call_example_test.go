package paygate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/url"

	"github.com/paygate/paygate-go/paygatetest"
)

// A parameter the SDK has no field for (here "locale" on user/resolve)
// is sent with a raw call, signed like every other.
func ExampleClient_Call() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()

	var user map[string]any
	err := client.Call(context.Background(), "POST", "user/resolve", url.Values{
		"identifier": {"cust-100452"},
		"ip":         {"203.0.113.7"},
		"locale":     {"de"},
	}, &user)
	if err != nil {
		log.Fatal(err)
	}
	_, isNumber := user["id"].(json.Number)
	fmt.Println("user id received:", user["id"] != nil, "as json.Number:", isNumber)
	// Output:
	// user id received: true as json.Number: true
}
