package paygateotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go/callback"
)

// StartCallback starts a delivery's server span; see
// callback.Observer.
func (o *Observer) StartCallback(ctx context.Context, d callback.Delivery) (context.Context, callback.Trace) {
	ctx, span := o.tracer.Start(ctx, CallbackSpanName, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(semconv.HTTPRequestMethodKey.String(d.Method)))
	return ctx, &callbackTrace{o: o, span: span}
}

// callbackTrace is one delivery's span.
type callbackTrace struct {
	o    *Observer
	span trace.Span
}

// End records the delivery's metrics and ends its span. A refused
// delivery gets error.type (its refusal) but, as the semantic conventions
// say of a server's 4xx answers, not the error status: the handler did
// its job. A failed one (answered 500) gets both.
func (t *callbackTrace) End(r callback.Result) {
	ctx := context.Background()
	sets := t.o.callbackEnding(callbackEndingKey{r.Verdict, metricStatus(r.Status), r.Refusal})
	t.o.callbacks.Add(ctx, 1, sets.byStatus...)
	t.o.callbackDuration.Record(ctx, r.Duration.Seconds(), sets.byVerdict...)
	if t.span.IsRecording() {
		t.span.SetAttributes(callbackAttributes(r)...)
		if r.Verdict == callback.VerdictFailed {
			t.span.SetStatus(codes.Error, string(r.Verdict))
		}
	}
	t.span.End()
}

// callbackEndingKey names an ending of a delivery; every field has few
// values, so the cache of their sets stays small.
type callbackEndingKey struct {
	verdict callback.Verdict
	status  string // metricStatus's
	refusal callback.Refusal
}

// callbackSets are the metric attribute sets of one ending of a delivery,
// as the instruments' variadic options (see endingSets).
type callbackSets struct {
	byStatus  []metric.AddOption    // verdict, status, refusal when there is one
	byVerdict []metric.RecordOption // verdict
}

// callbackEnding returns the cached attribute sets of a delivery's ending.
func (o *Observer) callbackEnding(key callbackEndingKey) *callbackSets {
	if s, ok := o.callbackEndings.Load(key); ok {
		return s.(*callbackSets)
	}
	verdict := VerdictKey.String(string(key.verdict))
	attrs := []attribute.KeyValue{verdict, CallbackStatusKey.String(key.status)}
	if key.refusal != "" {
		attrs = append(attrs, RefusalKey.String(string(key.refusal)))
	}
	s := &callbackSets{
		byStatus:  []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attrs...))},
		byVerdict: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(verdict))},
	}
	actual, _ := o.callbackEndings.LoadOrStore(key, s)
	return actual.(*callbackSets)
}

func callbackAttributes(r callback.Result) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 7)
	attrs = append(attrs, VerdictKey.String(string(r.Verdict)), semconv.HTTPResponseStatusCode(r.HTTPStatus))
	if r.Status != "" {
		attrs = append(attrs, CallbackStatusKey.String(string(r.Status)))
	}
	if r.Refusal != "" {
		attrs = append(attrs, RefusalKey.String(string(r.Refusal)), semconv.ErrorTypeKey.String(string(r.Refusal)))
	}
	if r.Verdict == callback.VerdictFailed {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(r.Verdict)))
	}
	if r.TransactionID != 0 {
		attrs = append(attrs, TransactionIDKey.String(r.TransactionID.String()))
	}
	if r.OrderID != "" {
		attrs = append(attrs, OrderIDKey.String(r.OrderID))
	}
	return attrs
}

// metricStatus is a callback's status as a metric's attribute: a status
// the spec does not list counts as "other", so that what a gateway may add
// cannot grow the metric without bound.
func metricStatus(s callback.Status) string {
	if s != "" && !s.Known() {
		return "other"
	}
	return string(s)
}
