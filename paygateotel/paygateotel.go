// Package paygateotel traces and measures the calls a paygate.Client makes
// and the callbacks a callback.Handler receives, with OpenTelemetry.
//
//	obs := paygateotel.New() // the global tracer and meter providers
//	client, err := paygate.NewClient(project, secret, paygate.WithBaseURL(base), paygate.WithObserver(obs))
//	handler, err := callback.NewHandler(keys, fulfil, callback.WithObserver(obs))
//
// Each call is one client span named after the gateway method
// ("card/process"), parent of the spans of the HTTP requests made for it
// when the client's transport is instrumented (otelhttp.NewTransport), with
// an event per attempt when it took several or failed. Each callback
// delivery is one server span, "paygate callback": a child of the trace
// the sender (the gateway, a proxy in front of the handler) sent in its
// traceparent header, read with the observer's propagators, as otelhttp's
// server spans are; and the parent of what the callback.Func does with its
// context.
//
// Span attributes: paygate.operation, paygate.outcome,
// paygate.gateway_code when the gateway sent one, the semantic
// conventions' http.request.resend_count and paygate.retries (the same
// count, kept for the queries written against it) when the request was
// sent again, paygate.order_id and paygate.transaction_id when the request
// carried them, and the semantic conventions' http.request.method,
// http.response.status_code, server.address, server.port, url.template and
// error.type. A callback's span has paygate.callback.status,
// paygate.callback.verdict, paygate.callback.refusal and its transaction
// and order ids, with http.request.method (for a method HTTP does not
// define "_OTHER", and http.request.method_original), http.response.status_code,
// url.path, url.scheme, http.route (the path of the http.ServeMux pattern
// that routed it), server.address and server.port (when the Host header
// names one other than the scheme's default). No URL with its query is
// ever recorded (a GET's query carries signed parameters, and
// card/getToken's the card), nor card data, tokens, PaRes, MD, keys,
// credential headers or bodies: the SDK never gives them to an observer.
//
// Options: WithTracerProvider and WithMeterProvider (the global ones by
// default), WithPropagators (the global one by default), WithSpanFilter to
// leave out some spans (the balance look-ups a dashboard polls, the
// callbacks of one status; the metrics still count them), WithoutIDs to
// keep order and transaction ids off the spans.
//
// Metrics (no id in any attribute, so their cardinality stays bounded):
//
//   - paygate.client.call.duration (s): histogram by paygate.operation and
//     paygate.outcome;
//   - paygate.client.calls: counter by paygate.operation, paygate.outcome
//     and paygate.gateway_code (when there is one; "other" for a code
//     outside the gateway's error table, see paygate.ErrorCode.Known, so
//     that a new code at every call does not make a series of each);
//   - paygate.client.retries: counter of retried attempts by
//     paygate.operation;
//   - paygate.client.unknown_outcomes: counter by paygate.operation of the
//     calls that must be settled (paygate.ErrOutcomeUnknown);
//   - paygate.callbacks: counter by paygate.callback.status,
//     paygate.callback.verdict and paygate.callback.refusal;
//   - paygate.callback.duration (s): histogram by paygate.callback.verdict.
package paygateotel

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/paygate/paygate-go/paygateotel"

// Attribute keys of the paygate namespace. The ids (order, transaction)
// are set on spans only, never on metrics.
const (
	// OperationKey is the gateway method, for example "card/process".
	OperationKey = attribute.Key("paygate.operation")
	// OutcomeKey is a paygate.CallOutcome, for example "declined".
	OutcomeKey = attribute.Key("paygate.outcome")
	// GatewayCodeKey is the gateway's five-digit error code, when it sent
	// one: on a span as it came, on a metric as it came when the error
	// table lists it and the string "other" when it does not.
	GatewayCodeKey = attribute.Key("paygate.gateway_code")
	// RetriesKey is how many times the request was sent again, set only on
	// a call that was retried, beside the semantic conventions'
	// http.request.resend_count of the same value (which otelhttp's
	// users query): it stays for the dashboards and alerts written
	// against it.
	RetriesKey = attribute.Key("paygate.retries")
	// AttemptKey numbers an attempt event, from 1.
	AttemptKey = attribute.Key("paygate.attempt")
	// RetryWaitKey is the wait in seconds before the next attempt.
	RetryWaitKey = attribute.Key("paygate.retry.wait")
	// OrderIDKey is the merchant's order id.
	OrderIDKey = attribute.Key("paygate.order_id")
	// TransactionIDKey is the transaction a request or callback named.
	TransactionIDKey = attribute.Key("paygate.transaction_id")
	// CallbackStatusKey is a callback's status, for example "completed".
	CallbackStatusKey = attribute.Key("paygate.callback.status")
	// VerdictKey is a callback.Verdict, for example "duplicate".
	VerdictKey = attribute.Key("paygate.callback.verdict")
	// RefusalKey is a callback.Refusal, for example "signature_invalid".
	RefusalKey = attribute.Key("paygate.callback.refusal")
)

// AttemptEvent is the name of the span event of each HTTP attempt.
const AttemptEvent = "paygate.attempt"

// CallbackSpanName is the name of a callback delivery's span.
const CallbackSpanName = "paygate callback"

// Observer is a paygate.Observer and a callback.Observer that
// records spans and metrics. It is safe for concurrent use.
type Observer struct {
	tracer      trace.Tracer
	propagators propagation.TextMapPropagator
	filter      func(SpanInfo) bool // nil: every span is kept
	withoutIDs  bool

	callDuration     metric.Float64Histogram
	calls            metric.Int64Counter
	retries          metric.Int64Counter
	unknownOutcomes  metric.Int64Counter
	callbacks        metric.Int64Counter
	callbackDuration metric.Float64Histogram

	// operations caches, by paygate.CallInfo, the attributes of the
	// operation's spans and metrics: built once, they cost a call no
	// allocation or sorting.
	operations sync.Map
	// callbackEndings caches, by callbackEndingKey, the attribute sets of
	// the callbacks' metrics.
	callbackEndings sync.Map
}

var (
	_ paygate.Observer  = (*Observer)(nil)
	_ callback.Observer = (*Observer)(nil)
)

// New returns an observer on the global tracer and meter providers, or on
// those the options give. An instrument the meter cannot create is
// reported to otel's error handler and left a no-op, as otelhttp does.
func New(opts ...Option) *Observer {
	cfg := config{}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.tracerProvider == nil {
		cfg.tracerProvider = otel.GetTracerProvider()
	}
	if cfg.meterProvider == nil {
		cfg.meterProvider = otel.GetMeterProvider()
	}
	if cfg.propagators == nil {
		cfg.propagators = otel.GetTextMapPropagator()
	}
	version := trace.WithInstrumentationVersion(paygate.Version)
	o := &Observer{
		tracer:      cfg.tracerProvider.Tracer(ScopeName, version, trace.WithSchemaURL(semconv.SchemaURL)),
		propagators: cfg.propagators,
		filter:      cfg.filter,
		withoutIDs:  cfg.withoutIDs,
	}
	o.newInstruments(cfg.meterProvider.Meter(ScopeName, metric.WithInstrumentationVersion(paygate.Version),
		metric.WithSchemaURL(semconv.SchemaURL)))
	return o
}

// durationBuckets suit calls that take from milliseconds (a sandbox) to a
// minute (the client's default timeout, retries included).
var durationBuckets = metric.WithExplicitBucketBoundaries(
	0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60)

func (o *Observer) newInstruments(m metric.Meter) {
	o.callDuration = histogram(m, "paygate.client.call.duration",
		"Duration of calls to the payment gateway, retries and waits included.")
	o.calls = counter(m, "paygate.client.calls", "{call}",
		"Calls to the payment gateway, by operation, outcome and gateway code.")
	o.retries = counter(m, "paygate.client.retries", "{attempt}",
		"Attempts sent again after a failed one.")
	o.unknownOutcomes = counter(m, "paygate.client.unknown_outcomes", "{call}",
		"Calls that may have been processed but got no usable answer: settle them.")
	o.callbacks = counter(m, "paygate.callbacks", "{callback}",
		"Callback deliveries, by status, verdict and refusal.")
	o.callbackDuration = histogram(m, "paygate.callback.duration",
		"Duration of handling a callback delivery.")
}

// counter and histogram create an instrument; one the meter cannot create
// is reported to otel's error handler, and the meter's (no-op) instrument
// is used.
func counter(m metric.Meter, name, unit, description string) metric.Int64Counter {
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(description))
	if err != nil {
		otel.Handle(err)
	}
	return c
}

func histogram(m metric.Meter, name, description string) metric.Float64Histogram {
	h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description), durationBuckets)
	if err != nil {
		otel.Handle(err)
	}
	return h
}

// StartCall starts the call's client span, unless the span filter leaves
// it out; see paygate.Observer.
func (o *Observer) StartCall(ctx context.Context, info paygate.CallInfo) (context.Context, paygate.CallTrace) {
	op := o.operation(info)
	span := noSpan
	if o.keep(SpanInfo{Operation: info.Operation}) {
		ctx, span = o.tracer.Start(ctx, info.Operation, op.startOptions...)
	}
	t := callTraces.Get().(*callTrace)
	t.o, t.span, t.op = o, span, op
	return ctx, t
}

// keep reports whether the span filter keeps a span.
func (o *Observer) keep(info SpanInfo) bool {
	return o.filter == nil || o.filter(info)
}

// noSpan stands for a span the filter left out: it records nothing.
var noSpan = trace.SpanFromContext(context.Background())

// callTraces recycles the traces of ended calls: End is called once and
// last (see paygate.CallTrace), and a trace, with room for End's
// attributes, is the largest allocation the observer makes per call.
var callTraces = sync.Pool{New: func() any { return new(callTrace) }}

// callTrace is one call's span and what its metrics are recorded by.
type callTrace struct {
	o    *Observer
	span trace.Span
	op   *operation
	// ending holds the attributes End sets, so that they need no
	// allocation of their own (the span copies them).
	ending [8]attribute.KeyValue
}

// Attempt counts a retry and adds an event per attempt to the span, but
// for a call whole at its first attempt (an answer read, no retry): its one
// exchange is told by the span's own attributes, and an event would only
// cost time. A second attempt follows only a retried first one, so a call
// of several attempts has an event for each.
func (t *callTrace) Attempt(a paygate.AttemptInfo) {
	if a.Retry {
		t.o.retries.Add(context.Background(), 1, t.op.only...)
	}
	if t.span.IsRecording() && (a.Attempt > 1 || a.Retry || a.ErrorClass != "") {
		addAttemptEvent(t.span, a)
	}
}

func addAttemptEvent(span trace.Span, a paygate.AttemptInfo) {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, AttemptKey.Int(a.Attempt))
	if a.HTTPStatus != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.HTTPStatus))
	}
	if a.ErrorClass != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(a.ErrorClass)))
	}
	if a.Retry {
		attrs = append(attrs, RetryWaitKey.Float64(a.Wait.Seconds()))
	}
	span.AddEvent(AttemptEvent, trace.WithAttributes(attrs...))
}

// End records the call's metrics and ends its span.
func (t *callTrace) End(r paygate.CallResult) {
	ctx := context.Background()
	sets := t.op.ending(r.Outcome, r.GatewayCode)
	t.o.callDuration.Record(ctx, r.Duration.Seconds(), sets.byOutcome...)
	t.o.calls.Add(ctx, 1, sets.byCode...)
	if r.Outcome == paygate.CallOutcomeUnknown {
		t.o.unknownOutcomes.Add(ctx, 1, t.op.only...)
	}
	if t.span.IsRecording() {
		t.span.SetAttributes(appendCallAttributes(t.ending[:0], r, !t.o.withoutIDs)...)
		if failed(r.Outcome) {
			t.span.SetStatus(codes.Error, string(r.Outcome))
		}
	}
	t.span.End()
	*t = callTrace{}
	callTraces.Put(t)
}

// appendCallAttributes appends to attrs the attributes of a call's end:
// eight at most. Each one left out matters: the SDK de-duplicates a span's
// attributes through a map when it ends, and a first attempt's call (five
// attributes at start, three here) stays within the map's smallest size.
// The ids are appended only when ids is set (see WithoutIDs).
func appendCallAttributes(attrs []attribute.KeyValue, r paygate.CallResult, ids bool) []attribute.KeyValue {
	attrs = append(attrs, OutcomeKey.String(string(r.Outcome)))
	if r.Attempts > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(r.Attempts-1), RetriesKey.Int(r.Attempts-1))
	}
	if r.GatewayCode != 0 {
		attrs = append(attrs, GatewayCodeKey.Int(int(r.GatewayCode)))
	}
	if r.HTTPStatus != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(r.HTTPStatus))
	}
	if ids {
		attrs = appendIDs(attrs, r.TransactionID, r.OrderID)
	}
	if failed(r.Outcome) {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(r.Outcome)))
	}
	return attrs
}

// appendIDs appends the ids that are set, of a call or a callback.
func appendIDs(attrs []attribute.KeyValue, transaction paygate.ID, order string) []attribute.KeyValue {
	if order != "" {
		attrs = append(attrs, OrderIDKey.String(order))
	}
	if transaction != 0 {
		attrs = append(attrs, TransactionIDKey.String(transaction.String()))
	}
	return attrs
}

// failed reports whether a call's span gets the error status: every
// ending but a success and a decline, which is the gateway's answer to the
// payment, not a failure of the call.
func failed(o paygate.CallOutcome) bool {
	return o != paygate.CallSucceeded && o != paygate.CallDeclined
}
