package paygateotel

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go/callback"
)

// StartCallback reads the trace context the delivery's sender sent, with
// the observer's propagators (see WithPropagators), and returns the
// context with it; see callback.Observer. The delivery's server span
// starts once its signature verified (see Verified), or as a refused one
// ends, so that the span filter sees its status; it is dated from now.
func (o *Observer) StartCallback(ctx context.Context, d callback.Delivery) (context.Context, callback.Trace) {
	arrived := time.Now()
	if d.Header != nil {
		ctx = o.propagators.Extract(ctx, deliveryCarrier(d.Header))
	}
	return ctx, &callbackTrace{o: o, parent: ctx, arrived: arrived, request: requestAttributes(d)}
}

// DeliveryHeaders names the headers the observer's propagators read; see
// callback.HeaderObserver.
func (o *Observer) DeliveryHeaders() []string { return o.propagators.Fields() }

var _ callback.HeaderObserver = (*Observer)(nil)

// callbackTrace is one delivery's span.
type callbackTrace struct {
	o *Observer
	// parent is the context StartCallback returned: the sender's trace.
	parent  context.Context
	arrived time.Time
	// request holds the attributes of the request: method, path, ...
	request []attribute.KeyValue
	// span is nil until started; noSpan when the filter left it out.
	span trace.Span
}

var _ callback.VerifiedTrace = (*callbackTrace)(nil)

// Verified starts the span of a delivery whose signature verified, with
// its status and ids, unless the span filter leaves it out; see
// callback.VerifiedTrace.
func (t *callbackTrace) Verified(ctx context.Context, v callback.VerifiedDelivery) context.Context {
	return t.start(ctx, v.Status, "", v.TransactionID, v.OrderID)
}

// start starts the delivery's span as a child of ctx, dated from its
// arrival, unless the span filter leaves it out, and returns ctx with it.
func (t *callbackTrace) start(ctx context.Context, status callback.Status, refusal callback.Refusal, transaction callback.ID, order string) context.Context {
	if !t.o.keep(SpanInfo{Callback: true, CallbackStatus: status, Refusal: refusal}) {
		t.span = noSpan
		return ctx
	}
	attrs := t.request
	if status != "" {
		attrs = append(attrs, CallbackStatusKey.String(string(status)))
	}
	if !t.o.withoutIDs {
		attrs = appendIDs(attrs, transaction, order)
	}
	ctx, t.span = t.o.tracer.Start(ctx, CallbackSpanName, serverKind, trace.WithTimestamp(t.arrived), trace.WithAttributes(attrs...))
	return ctx
}

// serverKind is made once: an option is an interface, and making it costs
// an allocation.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// End records the delivery's metrics and ends its span, started here for
// a delivery that was never Verified (a refused one). A refused delivery
// gets error.type (its refusal) but, as the semantic conventions say of a
// server's 4xx answers, not the error status: the handler did its job. A
// failed one (answered 500) gets both.
func (t *callbackTrace) End(r callback.Result) {
	ctx := context.Background()
	sets := t.o.callbackEnding(callbackEndingKey{r.Verdict, metricStatus(r.Status), r.Refusal})
	t.o.callbacks.Add(ctx, 1, sets.byStatus...)
	t.o.callbackDuration.Record(ctx, r.Duration.Seconds(), sets.byVerdict...)
	if t.span == nil {
		t.start(t.parent, r.Status, r.Refusal, r.TransactionID, r.OrderID)
	}
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

// callbackAttributes are the attributes of a delivery's end; the status
// and the ids were given as its span started.
func callbackAttributes(r callback.Result) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, VerdictKey.String(string(r.Verdict)), semconv.HTTPResponseStatusCode(r.HTTPStatus))
	if r.Refusal != "" {
		attrs = append(attrs, RefusalKey.String(string(r.Refusal)), semconv.ErrorTypeKey.String(string(r.Refusal)))
	}
	if r.Verdict == callback.VerdictFailed {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(r.Verdict)))
	}
	return attrs
}

// requestAttributes are the attributes otelhttp gives a server span that
// the delivery has: never the query (see callback.Delivery). The port is
// left out when it is the scheme's default, as otelhttp does.
func requestAttributes(d callback.Delivery) []attribute.KeyValue {
	scheme := "http"
	if d.TLS {
		scheme = "https"
	}
	// Room for the status and the two ids start appends.
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = appendMethod(attrs, d.Method)
	attrs = append(attrs, semconv.URLScheme(scheme))
	if d.Path != "" {
		attrs = append(attrs, semconv.URLPath(d.Path))
	}
	if d.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(d.Route))
	}
	host, port := splitHostPort(d.Host)
	if host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
	}
	if port > 0 && !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
		attrs = append(attrs, semconv.ServerPort(port))
	}
	return attrs
}

// appendMethod appends http.request.method as the semantic conventions
// (and otelhttp) record it: a method the HTTP specifications do not define
// is "_OTHER", with the method as sent in http.request.method_original, so
// that what anyone can send to a public URL does not become a value of its
// own.
func appendMethod(attrs []attribute.KeyValue, method string) []attribute.KeyValue {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace, http.MethodPatch:
		return append(attrs, semconv.HTTPRequestMethodKey.String(method))
	}
	return append(attrs, semconv.HTTPRequestMethodOther, semconv.HTTPRequestMethodOriginal(method))
}

// splitHostPort splits a Host header's host and port; the port is 0 when
// it names none (or none that is a number). Unlike net.SplitHostPort, a
// host without a port costs no error.
func splitHostPort(hostport string) (string, int) {
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if port == "" {
		return host, 0
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return host, 0
	}
	return host, int(p)
}

// deliveryCarrier is the propagators' view of callback.Delivery.Header: a
// few headers, found without canonicalizing the propagators' lower-case
// names (which propagation.HeaderCarrier does, at an allocation each).
type deliveryCarrier http.Header

// Get returns the first value of the header key, in any case.
func (c deliveryCarrier) Get(key string) string {
	if v := c[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range c {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

// Set does nothing: a delivery's headers are read, never written.
func (deliveryCarrier) Set(string, string) {}

// Keys returns the names of the headers.
func (c deliveryCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
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
