package paygate_test

import (
	"log"

	"github.com/paygate/paygate-go"
)

// exampleClient returns the client the examples use.
func exampleClient() *paygate.Client {
	client, err := paygate.NewClient("pk_live_project", "sk_live_private",
		paygate.WithBaseURL("https://gateway.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	return client
}
