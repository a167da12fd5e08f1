package paygate

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
)

// The benchmarks of this file measure the SDK's own cost against baselines
// run in the same process: see BENCHMARKS.md for the figures and targets.

// benchCharge is the typical 12-parameter charge of the signature vectors
// (testdata/signature/cases.txt, case typical_charge) as ChargeParams.
func benchCharge() *ChargeParams {
	interval := 30
	return &ChargeParams{
		User:              "1000042",
		CardToken:         NewCardToken("tok_9f8e7d6c5b4a"),
		Price:             decimal.RequireFromString("149.90"),
		Currency:          "USD",
		OrderID:           "ORD-2026-11-0042",
		Description:       "Annual subscription",
		ThreeDS:           true,
		ACSReturnURL:      "https://shop.example.com/acs/return?o=42&x=y",
		Remember:          true,
		Recurring:         true,
		RecurringInterval: &interval,
		Attributes:        map[string]string{"realm": "eu-west"},
	}
}

// BenchmarkEncodeChargeParams measures a params struct turned into a signed
// form body, as the pipeline does before sending. "stripe-comparable" is
// the 5-field struct with one nested struct of stripe-go's form encoder
// benchmark (11 allocations there, without encoding or signing);
// "ChargeParams" is the typical 12-parameter charge, checked against the
// independently computed signature of its vector.
func BenchmarkEncodeChargeParams(b *testing.B) {
	type sub struct {
		String string `url:"string"`
	}
	type stripeComparable struct {
		Bool    bool   `url:"bool"`
		Ignored string `url:"-"`
		Int     int64  `url:"int64"`
		String  string `url:"string"`
		Sub     *sub   `url:"subsubstruct"`
	}
	v := typicalCharge(b)
	c, err := NewClient(v.params.Get("project"), v.key, WithBaseURL("http://127.0.0.1"))
	if err != nil {
		b.Fatal(err)
	}
	ep := endpoints[epCharge]
	for _, bc := range []struct {
		name   string
		params any
		want   string // a part of the body that shows it is right
	}{
		{"stripe-comparable", &stripeComparable{Bool: true, Ignored: "123", Int: 123, String: "123", Sub: &sub{String: "123"}},
			"project=pk_live_83hd72&bool=1&int64=123&string=123&subsubstruct%5Bstring%5D=123&signature="},
		{"ChargeParams", benchCharge(), "&signature=" + v.signature},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf, want := make([]byte, 0, 1024), []byte(bc.want)
			b.ReportAllocs()
			for range b.N {
				body, _, err := c.encode(buf[:0], ep, bc.params)
				if err != nil || !bytes.Contains(body, want) {
					b.Fatalf("encode: %v, body %s", err, body)
				}
			}
		})
	}
}

// chargeBench is the loopback gateway both charge benchmarks talk to: one
// httptest server answering every request with the extended-form charge
// fixture, and one HTTP client, shared so that the SDK and the hand-written
// baseline run against the same server and transport in the same run.
var chargeBench = sync.OnceValues(func() (*httptest.Server, *http.Client) {
	answer, err := os.ReadFile(filepath.Join("testdata", "card_process_extended.json"))
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	// The server lives as long as the test binary: both benchmarks use it.
	return srv, srv.Client()
})

// benchPaymentID is the id of the fixture's payment.
const benchPaymentID ID = 4611686018427387913

// BenchmarkChargeRoundTrip is a full Cards.Charge through the SDK against a
// loopback server: validate, encode, sign, send, read, decode, check.
func BenchmarkChargeRoundTrip(b *testing.B) {
	srv, hc := chargeBench()
	v := typicalCharge(b)
	c, err := NewClient(v.params.Get("project"), v.key, WithBaseURL(srv.URL), WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	params := benchCharge()
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		p, err := c.Cards.Charge(ctx, params)
		if err != nil || p.ID != benchPaymentID {
			b.Fatalf("charge: %v", err)
		}
	}
}

// BenchmarkChargeRawHTTP is the same charge written by hand with net/http:
// url.Values from the same typed inputs, the same signature (values sorted,
// joined with "|", HMAC-SHA256, hex), the same headers, the body read whole
// and json.Unmarshal into the same Payment type. It is the baseline of
// BenchmarkChargeRoundTrip.
func BenchmarkChargeRawHTTP(b *testing.B) {
	srv, hc := chargeBench()
	v := typicalCharge(b)
	project, key := v.params.Get("project"), []byte(v.key)
	userAgent := "paygate-go/" + Version + " go/" + runtime.Version()
	in := benchCharge()
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		form := url.Values{
			"project":            {project},
			"user":               {string(in.User)},
			"card_token":         {in.CardToken.get()},
			"price":              {in.Price.StringFixed(2)},
			"currency":           {in.Currency},
			"description":        {in.Description},
			"order_id":           {in.OrderID},
			"3ds":                {"1"},
			"acs_return_url":     {in.ACSReturnURL},
			"remember":           {"1"},
			"recurring":          {"1"},
			"recurring_interval": {strconv.Itoa(*in.RecurringInterval)},
			"attr_realm":         {in.Attributes["realm"]},
		}
		values := make([]string, 0, len(form))
		for _, vs := range form {
			values = append(values, vs...)
		}
		sort.Strings(values)
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(strings.Join(values, "|")))
		form.Set("signature", hex.EncodeToString(mac.Sum(nil)))

		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/card/process", strings.NewReader(form.Encode()))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("HTTP %d: %v", resp.StatusCode, err)
		}
		var p Payment
		if err := json.Unmarshal(body, &p); err != nil || p.ID != benchPaymentID {
			b.Fatalf("decode: %v", err)
		}
	}
}

// BenchmarkListIterate walks a listing with Transactions.All against a
// loopback server serving pre-rendered pages of 100 transactions. The
// per-transaction figures (ns/txn, B/txn, allocs/txn) stay the same whatever
// the total, because All holds one page at a time.
func BenchmarkListIterate(b *testing.B) {
	const pageSize = 100
	for _, total := range []int{1000, 10000} {
		b.Run("total="+strconv.Itoa(total), func(b *testing.B) {
			pages := renderListPages(total, pageSize)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, err := strconv.Atoi(r.URL.Query().Get("page"))
				if err != nil || n < 1 || n > len(pages) {
					http.Error(w, `{"error":{"code":40403,"message":"Transaction not found"}}`, http.StatusNotFound)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write(pages[n-1])
			}))
			defer srv.Close()
			c, err := NewClient("pk_bench", "sk_bench", WithBaseURL(srv.URL), WithHTTPClient(srv.Client()))
			if err != nil {
				b.Fatal(err)
			}
			params := &TransactionListParams{OrderID: "ord-bench", Limit: pageSize}
			ctx := context.Background()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				seen := 0
				for _, err := range c.Transactions.All(ctx, params) {
					if err != nil {
						b.Fatal(err)
					}
					seen++
				}
				if seen != total {
					b.Fatalf("saw %d transactions, want %d", seen, total)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			txns := float64(b.N) * float64(total)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/txns, "ns/txn")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/txns, "B/txn")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/txns, "allocs/txn")
		})
	}
}

// renderListPages renders the pages of a listing of total transactions, in
// the shape of testdata/transactions_list_page1.json.
func renderListPages(total, pageSize int) [][]byte {
	var pages [][]byte
	for first := 0; first < total; first += pageSize {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, `{"totalCount":%d,"transactions":[`, total)
		for i := first; i < min(first+pageSize, total); i++ {
			if i > first {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"id":"%d","orderId":"ord-bench","referenceId":null,"price":"10.00","fee":"0.3000",`+
				`"currency":"EUR","type":"payment","method":"card","status":"completed","originalStatus":"completed",`+
				`"createdAt":"2026-03-11T10:00:00+00:00","updatedAt":"2026-03-11T10:00:05+00:00","reason":null,`+
				`"user":{"id":"31337","identifier":"customer-8812"},`+
				`"card":{"lastFour":"4242","mask":"************4242","scheme":"visa","expirationMonth":12,"expirationYear":2029}}`,
				int64(9007199254740993000)+int64(i))
		}
		buf.WriteString("]}")
		pages = append(pages, buf.Bytes())
	}
	return pages
}
