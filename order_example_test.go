package paygate_test

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// ExampleOrderState_Apply keeps an order by the rule while the news
// arrives out of order: the completed callback overtakes the charge's
// answer, which then turns out unknown, and after a refund the completed
// callback is delivered once more. In a shop, each Apply runs inside the
// database transaction that reads and writes the order.
func ExampleOrderState_Apply() {
	order := paygate.NewOrderState(decimal.RequireFromString("49.90"))
	record := func(news string, o paygate.OrderObservation) {
		order = order.Apply(o)
		fmt.Printf("%-32s %s, refunded %s\n", news, order.Status, order.Refunded.StringFixed(2))
	}
	payment := &callback.Callback{ID: 1001, OrderID: "ord-1001", Status: callback.Completed}
	refund := &callback.Callback{ID: 1002, ReferenceID: 1001, OrderID: "ord-1001",
		Status: callback.RefundCompleted, Price: decimal.RequireFromString("19.90")}
	timeout := &paygate.OutcomeUnknownError{Method: "POST", Path: "card/process", OrderID: "ord-1001",
		Err: errors.New("context deadline exceeded")}

	record("callback completed", paygate.ObserveCallback(payment))
	record("charge: outcome unknown", paygate.ObserveCharge(nil, timeout))
	record("callback refund_completed", paygate.ObserveCallback(refund))
	record("reconciled: status refunded", paygate.ObserveStatus(paygate.StatusRefunded))
	record("callback completed, again", paygate.ObserveCallback(payment))
	// Output:
	// callback completed               paid, refunded 0.00
	// charge: outcome unknown          paid, refunded 0.00
	// callback refund_completed        partially_refunded, refunded 19.90
	// reconciled: status refunded      refunded, refunded 49.90
	// callback completed, again        refunded, refunded 49.90
}
