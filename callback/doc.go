// Package callback is the webhook side of the Payment Gateway API: it
// verifies the gateway's signed callbacks, decodes them into a typed
// [Callback], and serves them through an http.Handler that passes each one
// once to the merchant's function.
//
// The handler pattern: one [Handler] on the callback URL of the project,
// with the project's private key (two during a key rotation) and a function
// that returns nil only once the callback is durably handled:
//
//	handler, err := callback.NewHandler([]string{os.Getenv("PAYGATE_SECRET")},
//		func(ctx context.Context, cb *callback.Callback) error {
//			if cb.Stale {
//				return nil // a later status of its transaction was processed already
//			}
//			// Confirm the callback against the gateway's record first
//			// (paygate's Client.ConfirmCallback): the signature does not
//			// bind values to field names.
//			switch cb.Status {
//			case callback.Completed:
//				return orders.MarkPaid(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
//			case callback.RefundCompleted, callback.Reversed:
//				return orders.MarkRefunded(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
//			}
//			return nil
//		})
//	if err != nil {
//		log.Fatal(err)
//	}
//	http.Handle("POST /paygate/callback", handler)
//
// The handler answers 200 "OK" once the function returned nil or for a
// repeat of a processed callback, 403 for a wrong or missing signature, 400
// for a signed callback that cannot be read, and 500 when the function or
// the de-duplication store failed, so that the gateway delivers again.
//
// De-duplication keeps a record per callback in a [Store]: by default an
// in-process [MemoryStore]; on several replicas a shared one, from the
// modules github.com/paygate/paygate-go/dedup/redisdedup and
// .../dedup/pgdedup, passed with [WithStore]. A store implements [Store]
// (and [OrderStore] and [LeasedStore] when it can) and needs to import only
// this package.
//
// This package does not import the client (package paygate): its ID,
// UserID and Form are the same types as paygate.ID, paygate.UserID and
// paygate.Form, so a callback's ids pass to the client with no conversion.
package callback
