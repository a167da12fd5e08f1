package paygate

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// One fuzz target per decoder: a response type under its row's answer
// rules (rows sharing both share a target; TestEndpointCases_EveryDecoderHasAFuzzTarget
// names a row that no target decodes). Each feeds arbitrary bodies,
// answered with HTTP 200, through the decoding step of its row: it must
// never panic and never succeed on a body whose required fields (see
// endpointCases) are absent or null. Each is seeded with its row's answer
// fixture, beside the corpora in testdata/fuzz/FuzzDecode*; .ci/fuzz runs
// each target for a few seconds.

func FuzzDecodePayment(f *testing.F)            { fuzzDecoder(f, epCharge) }
func FuzzDecodeAuthentication(f *testing.F)     { fuzzDecoder(f, epAuthenticate) }
func FuzzDecodeRecurringPayment(f *testing.F)   { fuzzDecoder(f, epChargeRecurring) }
func FuzzDecodeReversal(f *testing.F)           { fuzzDecoder(f, epReverse) }
func FuzzDecodeToken(f *testing.F)              { fuzzDecoder(f, epTokenize) }
func FuzzDecodeTransactionStatus(f *testing.F)  { fuzzDecoder(f, epStatus) }
func FuzzDecodeTransaction(f *testing.F)        { fuzzDecoder(f, epTransactionByID) }
func FuzzDecodeTransactionPage(f *testing.F)    { fuzzDecoder(f, epListTransactions) }
func FuzzDecodeAlternativePayment(f *testing.F) { fuzzDecoder(f, epCreateAlternative) }
func FuzzDecodePayoutTypes(f *testing.F)        { fuzzDecoder(f, epPayoutTypes) }
func FuzzDecodePayoutParameters(f *testing.F)   { fuzzDecoder(f, epPayoutParameters) }
func FuzzDecodePayout(f *testing.F)             { fuzzDecoder(f, epCreatePayout) }
func FuzzDecodeBalance(f *testing.F)            { fuzzDecoder(f, epBalance) }
func FuzzDecodeResolve(f *testing.F)            { fuzzDecoder(f, epResolveUser) }
func FuzzDecodeSuccess(f *testing.F)            { fuzzDecoder(f, epCancelRecurring) }

// fuzzDecoder fuzzes the pipeline's decoding step for one response type.
// It calls the step directly rather than through an HTTP round trip, whose
// goroutines make coverage vary from run to run and stall the fuzzer;
// TestDecoders_HostileAndBrokenAnswers covers the whole method.
func fuzzDecoder(f *testing.F, name endpointName) {
	d := responseDecoderOf(name)
	f.Add(fixture(f, d.fixture))
	c, err := NewClient(testProject, testSecret, WithBaseURL(testBaseURL))
	if err != nil {
		f.Fatal(err)
	}
	ep := endpoints[name]
	f.Fuzz(func(t *testing.T, body []byte) {
		out := d.into()
		if _, err := c.decode(ep, http.StatusOK, body, out); err != nil {
			return
		}
		if p, ok := out.(*payoutResponse); ok && !p.Payout.Success {
			return // Create reports it declined, id or not
		}
		for _, field := range d.required {
			if i := strings.LastIndex(field, "]"); i >= 0 {
				if _, ok := lookupJSON(body, field[:i+1]); !ok {
					continue // a field of an element the array does not have
				}
			}
			// Presence, not zero value: 0, "" and false are values.
			v, ok := lookupJSON(body, field)
			if !ok || v == nil {
				t.Fatalf("succeeded although required %s is %v (present %v) in %q", field, v, ok, body)
			}
		}
	})
}

// lookupJSON returns the value at path (as editJSON spells it) of a JSON
// document, numbers as json.Number.
func lookupJSON(doc []byte, path string) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var node any
	if dec.Decode(&node) != nil {
		return nil, false
	}
	for _, part := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(part, "[")
		if name != "" {
			obj, ok := node.(map[string]any)
			if !ok {
				return nil, false
			}
			if node, ok = obj[name]; !ok {
				// encoding/json matches keys without regard to case.
				for k, v := range obj {
					if strings.EqualFold(k, name) && v != nil {
						node, ok = v, true
					}
				}
				if !ok {
					return nil, false
				}
			}
		}
		if idx != "" {
			n, _ := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			arr, ok := node.([]any)
			if !ok || n >= len(arr) {
				return nil, false
			}
			node = arr[n]
		}
	}
	return node, true
}
