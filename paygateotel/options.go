package paygateotel

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go/callback"
)

// Option configures New. It is an interface, as otelhttp's options are, so
// that options can be added without changing New.
type Option interface {
	apply(*config)
}

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagators    propagation.TextMapPropagator
	filter         func(SpanInfo) bool
	withoutIDs     bool
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTracerProvider sets the provider of the observer's tracer; the
// default is the global one (otel.GetTracerProvider) at the time of New.
func WithTracerProvider(p trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tracerProvider = p })
}

// WithMeterProvider sets the provider of the observer's meter; the default
// is the global one (otel.GetMeterProvider) at the time of New.
func WithMeterProvider(p metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meterProvider = p })
}

// WithPropagators sets the propagators that read the trace context a
// callback's sender (the gateway, a proxy in front of the handler) sent,
// so that the callback's span is a child of the sender's, as otelhttp's
// server spans are; the default is the global one
// (otel.GetTextMapPropagator) at the time of New. Whoever can POST to the
// callback URL can send a traceparent: an empty composite
// (propagation.NewCompositeTextMapPropagator()) starts every callback's
// trace anew. A call's context goes to the gateway through the
// propagators of an instrumented transport (otelhttp.NewTransport), not
// these.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return optionFunc(func(c *config) { c.propagators = p })
}

// SpanInfo describes a span about to start, for the filter of
// WithSpanFilter. It is a struct so that fields can be added.
type SpanInfo struct {
	// Operation is a call's operation, as its span is named:
	// "card/process", "balance", "transactions/{id}" or
	// paygate.OperationOther; empty for a callback.
	Operation string
	// Callback is set for a callback delivery's span.
	Callback bool
	// CallbackStatus is a verified callback's status; empty for a call and
	// for a refused delivery.
	CallbackStatus callback.Status
	// Refusal says why a delivery was refused; empty otherwise.
	Refusal callback.Refusal
}

// WithSpanFilter records only the spans for which keep returns true: for
// example, leave out the balance look-ups a dashboard polls, or the
// callbacks of one status. The metrics still count every call and
// delivery. A call's filter runs as it starts, a callback's once its
// signature verified (or it was refused), so that it sees the status;
// the callback's span, when kept, is still dated from the delivery's
// arrival. What is done inside a call or a callback left out (an
// instrumented transport's spans, the callback.Func's) has as parent the
// caller's span, or for a callback the sender's, if any. keep must be safe
// for concurrent use.
func WithSpanFilter(keep func(SpanInfo) bool) Option {
	return optionFunc(func(c *config) { c.filter = keep })
}

// WithoutIDs keeps the merchant's order ids and the transaction ids
// (paygate.order_id, paygate.transaction_id) off the spans of calls and
// callbacks: in some shops an order id is personal data. The metrics never
// carry an id.
func WithoutIDs() Option {
	return optionFunc(func(c *config) { c.withoutIDs = true })
}
