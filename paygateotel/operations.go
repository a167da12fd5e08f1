package paygateotel

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
)

// operation holds what every call of one operation, to one server,
// records: its span's start attributes and its metrics' attribute sets.
// There are as many as the gateway has methods times the outcomes and the
// codes of its error table (the others share one), so the cache stays
// small.
type operation struct {
	attr attribute.KeyValue
	// startOptions start the span: its kind and attributes.
	startOptions []trace.SpanStartOption
	// only holds the attribute set of the metrics by operation alone.
	only []metric.AddOption
	// endings caches the sets by outcome and gateway code.
	endings sync.Map
}

// endingKey names an ending of a call.
type endingKey struct {
	outcome paygate.CallOutcome
	code    paygate.ErrorCode
}

// endingSets are the metric attribute sets of one ending. They are kept
// as the slices the instruments' variadic options take: a slice passed on
// costs no allocation, while an option passed alone would be put in a new
// one at every call (an instrument is an interface, so it escapes).
type endingSets struct {
	byOutcome []metric.RecordOption // operation, outcome
	byCode    []metric.AddOption    // operation, outcome, gateway code when there is one
}

// operation returns the cached operation of info.
func (o *Observer) operation(info paygate.CallInfo) *operation {
	if op, ok := o.operations.Load(info); ok {
		return op.(*operation)
	}
	attr := OperationKey.String(info.Operation)
	op := &operation{
		attr: attr,
		startOptions: []trace.SpanStartOption{
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(
				attr,
				semconv.HTTPRequestMethodKey.String(info.Method),
				semconv.ServerAddress(info.ServerAddress),
				semconv.ServerPort(info.ServerPort),
				semconv.URLTemplate("/v1/"+info.Operation),
			),
		},
		only: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attr))},
	}
	actual, _ := o.operations.LoadOrStore(info, op)
	return actual.(*operation)
}

// otherCode stands, in an endingKey, for every code outside the gateway's
// error table.
const otherCode paygate.ErrorCode = -1

// otherCodeLabel is the value of GatewayCodeKey in the metrics for a code
// outside the gateway's error table (see paygate.ErrorCode.Known): the
// codes are an open set of numbers, and a gateway or a proxy answering a new
// one at every call would otherwise make a series of each. The span keeps
// the code as it came.
const otherCodeLabel = "other"

// ending returns the cached attribute sets of an ending. The cache is keyed
// by the code's label, not the code, so that unlisted codes share one entry
// as they share one series.
func (op *operation) ending(outcome paygate.CallOutcome, code paygate.ErrorCode) *endingSets {
	if code != 0 && !code.Known() {
		code = otherCode
	}
	key := endingKey{outcome, code}
	if s, ok := op.endings.Load(key); ok {
		return s.(*endingSets)
	}
	byOutcome := attribute.NewSet(op.attr, OutcomeKey.String(string(outcome)))
	byCode := byOutcome
	switch code {
	case 0:
	case otherCode:
		byCode = attribute.NewSet(op.attr, OutcomeKey.String(string(outcome)), GatewayCodeKey.String(otherCodeLabel))
	default:
		byCode = attribute.NewSet(op.attr, OutcomeKey.String(string(outcome)), GatewayCodeKey.Int(int(code)))
	}
	s := &endingSets{
		byOutcome: []metric.RecordOption{metric.WithAttributeSet(byOutcome)},
		byCode:    []metric.AddOption{metric.WithAttributeSet(byCode)},
	}
	actual, _ := op.endings.LoadOrStore(key, s)
	return actual.(*endingSets)
}
