package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/paygate-go"
)

// handleCallback applies a verified callback to its order. The signature
// covers values but not field names, so the callback is confirmed against
// the gateway's record of its transaction before the order changes; one that does
// not confirm, or that belongs to another payment attempt, is acknowledged
// and ignored. Returning an error makes the gateway deliver it again.
func (a *app) handleCallback(ctx context.Context, cb *paygate.Callback) error {
	o, ok := a.orders.get(cb.OrderID)
	switch {
	case !ok:
		a.cfg.Logger.Warn("callback for an unknown order", "order", cb.OrderID, "transaction", cb.ID)
		return nil
	case cb.ID != o.TransactionID && o.Paying:
		// The callback overtook the gateway's answer to the payment request;
		// an error makes the gateway deliver it again shortly.
		return fmt.Errorf("callback %s arrived before the payment of order %s was recorded", cb.ID, o.ID)
	case cb.ID != o.TransactionID && o.TransactionID != 0:
		a.cfg.Logger.Warn("callback for an earlier payment attempt", "order", o.ID, "transaction", cb.ID)
		return nil
	}
	if !cb.Price.Equal(o.Product.Price) || cb.Currency != o.Product.Currency {
		a.cfg.Logger.Warn("callback amount differs from the order", "order", o.ID, "transaction", cb.ID)
		return nil
	}
	var mismatch *paygate.CallbackMismatchError
	switch _, err := a.cfg.Client.ConfirmCallback(ctx, cb); {
	case errors.As(err, &mismatch) && cb.Stale:
		// A processing callback that arrives after the completed one was
		// processed, say: acknowledged, never acted on.
		a.cfg.Logger.Info("stale callback not confirmed", "order", o.ID, "transaction", cb.ID,
			"status", cb.Status, "mismatches", strings.Join(mismatch.Fields, ","))
		return nil
	case errors.As(err, &mismatch):
		// Replayed, tampered with, or read while the payment still changes:
		// never acted on, and not recorded as processed (the handler answers
		// 500), so the genuine delivery with the same values still counts.
		return fmt.Errorf("callback %s of order %s not confirmed (%s): %w", cb.ID, o.ID,
			strings.Join(mismatch.Fields, ","), err)
	case err != nil:
		return fmt.Errorf("confirming callback %s: %w", cb.ID, err)
	}
	status, msg := callbackOutcome(cb)
	if status == "" {
		return nil
	}
	a.cfg.Logger.Info("callback", "order", o.ID, "transaction", cb.ID, "status", cb.Status)
	a.orders.update(o.ID, func(ord *order) bool {
		switch ord.TransactionID {
		case cb.ID:
		case 0:
			// The charge's outcome was unknown; the confirmed callback names
			// the order's transaction.
			ord.TransactionID = cb.ID
		default:
			return false
		}
		a.orders.setStatus(ord, sourceCallback, status, msg)
		return true
	})
	return nil
}

// callbackOutcome maps a confirmed callback to the order's status; "" for a
// callback the shop does not act on.
func callbackOutcome(cb *paygate.Callback) (status, message string) {
	switch cb.Status {
	case paygate.CallbackCompleted:
		return statusCompleted, ""
	case paygate.CallbackProcessing, paygate.CallbackWaitingApproval:
		return statusProcessing, ""
	case paygate.CallbackFailed:
		return statusFailed, "The payment failed. No money was taken."
	case paygate.CallbackRefundCompleted, paygate.CallbackReversed:
		return statusRefunded, "The payment was refunded."
	}
	return "", ""
}
