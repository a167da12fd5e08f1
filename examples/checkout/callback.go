package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// handleCallback applies a verified callback to its order: the payment's
// own callbacks (completed, failed, processing, ...) and those of the
// transactions that follow it (refunds, chargebacks, retrievals,
// penalties). The signature covers values but not field names, so every
// callback is confirmed against the gateway's record of its transaction
// before the order changes. Returning an error makes the gateway deliver
// it again.
func (a *app) handleCallback(ctx context.Context, cb *callback.Callback) error {
	o, ok := a.orders.get(cb.OrderID)
	switch {
	case !ok:
		a.cfg.Logger.Warn("callback for an unknown order", "order", cb.OrderID, "transaction", cb.ID)
		return nil
	case !followsPayment(cb.Status) && !o.currentAttempt(cb.ID):
		a.cfg.Logger.Info("callback for another payment of the order", "order", o.ID, "transaction", cb.ID, "status", cb.Status)
		return nil
	case !followsPayment(cb.Status) && !cb.Price.Equal(o.Product.Price), cb.Currency != o.Product.Currency:
		a.cfg.Logger.Warn("callback amount differs from the order", "order", o.ID, "transaction", cb.ID)
		return nil
	}
	var mismatch *paygate.CallbackMismatchError
	switch _, err := a.cfg.Client.ConfirmCallback(ctx, cb); {
	case errors.As(err, &mismatch) && oldNews(o, cb):
		// A completed delivered again after the refund, a processing after
		// the completed: the order is past it. Acknowledged, never acted on.
		a.cfg.Logger.Info("callback overtaken by the order", "order", o.ID, "transaction", cb.ID,
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
	a.cfg.Logger.Info("callback", "order", o.ID, "transaction", cb.ID, "status", cb.Status)
	a.orders.update(o.ID, func(ord *order) bool {
		if !a.orders.recordCallback(ord, cb) {
			return false
		}
		a.orders.observe(ord, sourceCallback, string(cb.Status), paygate.ObserveCallback(cb), "")
		return true
	})
	return nil
}

// recordCallback ties a confirmed callback to o, and reports whether o
// should take it. A callback of the payment is the current attempt's: one
// whose answer has not named its transaction yet (the callback came first,
// or the outcome was unknown) takes the callback's. A refund, chargeback,
// retrieval or penalty is recorded once, by its transaction.
func (s *orderStore) recordCallback(o *order, cb *callback.Callback) bool {
	if !followsPayment(cb.Status) {
		if !o.currentAttempt(cb.ID) {
			return false
		}
		o.TransactionID = cb.ID
		if cb.Status == callback.Reversed {
			s.recordMoney(o, cb)
		}
		return true
	}
	return o.TransactionID != 0 && s.recordMoney(o, cb)
}

// recordMoney adds the money cb reports to o's list, once per transaction
// and status; it reports whether it was new.
func (s *orderStore) recordMoney(o *order, cb *callback.Callback) bool {
	for _, m := range o.Money {
		if m.TransactionID == cb.ID && m.Kind == cb.Status {
			return false
		}
	}
	o.Money = append(o.Money, moneyEvent{At: s.now(), Kind: cb.Status, TransactionID: cb.ID, Amount: cb.Price, Currency: cb.Currency})
	return true
}

// currentAttempt reports whether transaction id can be the payment of
// o's current attempt: it is, or the attempt's transaction is not known
// yet and id is none of the earlier attempts'.
func (o order) currentAttempt(id paygate.ID) bool {
	return o.TransactionID == id || o.TransactionID == 0 && !slices.Contains(o.EarlierAttempts, id)
}

// oldNews reports whether cb would change nothing on o: the order moved
// past it, or recorded it already.
func oldNews(o order, cb *callback.Callback) bool {
	if followsPayment(cb.Status) {
		return slices.ContainsFunc(o.Money, func(m moneyEvent) bool { return m.TransactionID == cb.ID && m.Kind == cb.Status })
	}
	return o.State.Apply(paygate.ObserveCallback(cb)).Equal(o.State)
}

// followsPayment reports whether a callback of status s is about a new
// transaction that follows the order's payment (its reference_id names
// the payment, or for a retrieval or penalty the chargeback or refund)
// rather than about the payment itself.
func followsPayment(s callback.Status) bool {
	switch s {
	case callback.RefundCompleted, callback.ChargebackCompleted,
		callback.RetrievalCompleted, callback.PenaltyCompleted:
		return true
	}
	return false
}
