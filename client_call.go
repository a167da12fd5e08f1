package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/paygate/paygate-go/internal/formenc"
)

// Call sends a request the SDK does not model: an endpoint added to the
// gateway after this release, or parameters a typed call has no field for.
// method is GET or POST; path is the endpoint below /v1/ ("transaction/status",
// "/v1/transactions/42" and "transactions/42" are the same); params are
// sent as they are, in key order, with the client's project key added; out
// receives the answer (see below) and may be nil.
//
// path is sent as it is written, so it is refused (a [*ValidationError],
// nothing sent) unless its segments hold only ASCII letters, digits and
// -._~!$&'()*+,;=:@: no percent-escape (an encoded "." or "/" would pass
// any check here and be decoded into a step up by the gateway or a proxy),
// no query or fragment, no empty, "." or ".." segment.
//
// The request goes through the pipeline of the typed calls, with every
// guarantee they give: it is signed unless it is one of the three unsigned
// GETs (card/getToken, payout-types, payout-parameters); a GET is retried
// under the retry policy, a POST that may have reached the gateway never
// is (its error matches [ErrOutcomeUnknown]); a redirect is refused; the
// answer is read up to the client's size limit; a gateway error object
// becomes an [*Error]; the extended-only endpoints fail on a basic-form
// client before anything is sent.
//
// The SDK cannot tell which of the given parameters carry card data or
// personal data, so an error of a raw call, and the SDK's log records of
// it, never quote a body that is not a gateway error object and mask every
// value the call sent, however short (a security code, a PIN) and however
// the answer reformatted it (in another letter case or spacing,
// URL-encoded, HTML- or JSON-escaped, a number in groups, an expiry as
// MMYY), but those that identify the request: project, order_id,
// orderId, id (a transaction id), price, amount, currency and signature,
// which the typed calls leave readable too. A user is masked: some
// endpoints take the payer's own identifier, an e-mail address, as user.
// Errors and log records name the endpoint as an [Observer] gets it, never
// by the path, which may hold an e-mail address or a card number:
// "transactions/{id}" for an endpoint the SDK knows, [OperationOther] for
// any other; where an answer quotes the path, all but its plain words are
// masked.
//
// out may be a *json.RawMessage (the body as received), a *map[string]any,
// *[]any or *any (numbers arrive as json.Number, so that a 19-digit
// transaction id keeps every digit), or a pointer to a struct with json
// tags, decoded as the typed answers are: a field that cannot be read is
// left zero rather than failing the call.
//
// params must not hold "project" or "signature": the client sends its own.
func (c *Client) Call(ctx context.Context, method, path string, params url.Values, out any, opts ...CallOption) error {
	ep, err := rawEndpoint(method, path)
	if err != nil {
		return err
	}
	for _, k := range []string{"project", SignatureParam} {
		if _, ok := params[k]; ok {
			return &ValidationError{Field: k, Reason: "is sent by the client itself; leave it out of params"}
		}
	}
	if needsJSONNumbers(out) {
		out = &jsonNumbers{out: out}
	}
	return c.do(ctx, ep, rawParams(params), out, opts)
}

// rawEndpoint returns the endpoint a raw call of method and path goes to:
// the table's row when the endpoint is one the SDK knows (so that its
// signing, form and settling rules hold), else a signed endpoint retried
// only when it reads (GET). Whatever the row says, no answer field is
// required: out is the caller's.
func rawEndpoint(method, path string) (endpoint, error) {
	method = strings.ToUpper(method)
	if method != http.MethodGet && method != http.MethodPost {
		return endpoint{}, &ValidationError{Field: "method", Reason: "the gateway serves GET and POST only, not " + method}
	}
	path = strings.TrimPrefix(strings.TrimPrefix(path, "/"), "v1/")
	if !isRawPath(path) {
		return endpoint{}, &ValidationError{Field: "path", Reason: "must be an endpoint below /v1/: segments of letters, digits and " +
			rawPathPunctuation + ", none empty, . or .., nothing percent-encoded, the parameters in params"}
	}
	ep, known := endpointFor(method, path)
	if !known {
		ep = endpoint{method: method, path: path, idempotent: method == http.MethodGet, template: OperationOther}
	}
	ep.answer, ep.raw = decodeRules{}, true
	return ep, nil
}

// rawPathPunctuation are the characters besides ASCII letters and digits a
// segment of a raw call's path may hold: those RFC 3986 lets a path segment
// hold as they are. "%" is not one of them: an encoded "." or "/" would pass
// a check of the path as written and be decoded by the gateway, or a proxy,
// into a step up ("%2e%2e/admin"). The gateway's endpoints never need one.
const rawPathPunctuation = "-._~!$&'()*+,;=:@"

// isRawPath reports whether path (below /v1/) may be sent as it is: it
// names one endpoint below /v1/ whatever decodes or cleans it on the way,
// with no query, fragment, escape, empty, "." or ".." segment.
func isRawPath(path string) bool {
	if path == "" {
		return false
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !isASCIIDigit(c) && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && strings.IndexByte(rawPathPunctuation, c) < 0 {
				return false
			}
		}
	}
	return true
}

// rawParams are the parameters of a raw call.
type rawParams url.Values

// appendTo appends the parameters to dst in key order, each key's values
// in the order given.
func (p rawParams) appendTo(dst formenc.Pairs) formenc.Pairs {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range p[k] {
			dst = append(dst, formenc.Pair{Key: k, Value: v})
		}
	}
	return dst
}

// needsJSONNumbers reports whether out is a generic JSON container, which
// encoding/json would fill with float64 numbers.
func needsJSONNumbers(out any) bool {
	switch out.(type) {
	case *map[string]any, *[]any, *any:
		return true
	}
	return false
}

// jsonNumbers decodes into a generic container with json.Number numbers.
type jsonNumbers struct{ out any }

// UnmarshalJSON implements json.Unmarshaler.
func (j *jsonNumbers) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(j.out)
}
