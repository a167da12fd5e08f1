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
//			// The signature covers values, not field names: act only on a
//			// callback the gateway's own record confirms.
//			_, err := client.ConfirmCallback(ctx, cb)
//			var mismatch *paygate.CallbackMismatchError
//			switch {
//			case cb.Stale && (err == nil || errors.As(err, &mismatch)),
//				errors.As(err, &mismatch) && mismatch.Superseded:
//				return nil // its transaction has moved on since: acknowledged, never acted on
//			case err != nil:
//				return err // values moved between fields, or the gateway not reached: 500, delivered again
//			}
//			switch cb.Status {
//			case callback.Completed:
//				return orders.MarkPaid(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
//			case callback.RefundCompleted, callback.Reversed:
//				return orders.MarkRefunded(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
//			case callback.ChargebackCompleted:
//				return orders.MarkChargedBack(ctx, cb.OrderID, cb.ID, cb.Price, cb.Currency)
//			}
//			return orders.RecordStatus(ctx, cb.OrderID, cb.ID, cb.Status) // the order's history
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
