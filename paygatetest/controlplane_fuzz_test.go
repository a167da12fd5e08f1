package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/paygatetest"
)

// FuzzControlPlane sends arbitrary paths and bodies, as a form or as JSON,
// to the control plane with the right key: whatever arrives, the answer is
// JSON (an error object, or the operation's result), never a server error
// or a panic, and the server keeps serving.
func FuzzControlPlane(f *testing.F) {
	f.Add("clock", "advance=1h", false)
	f.Add("clock", `{"advance":"-5m"}`, true)
	f.Add("transactions/1000000000000000001/chargeback", "", false)
	f.Add("transactions/1000000000000000002/retrieval", "", false)
	f.Add("transactions/99999999999999999999/penalty", "", false)
	f.Add("faults", `{"method":"card/process","fault":"status-503","count":1e3}`, true)
	f.Add("faults", "method=card%2Fprocess&fault=html-502&count=-1", false)
	f.Add("deliveries/1/redeliver", "", false)
	f.Add("callback-url", "url=http://%zz", false)
	f.Add("callback-url", `{"url":null}`, true)
	f.Add("reset", `[1,2]`, true)
	f.Add("a/b/c/d", "", false)
	srv := paygatetest.NewServer(paygatetest.WithClock(paygatetest.NewClock(testStart)))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, path, body string, asJSON bool) {
		req, err := http.NewRequest(http.MethodPost, "http://sandbox.test/sandbox/"+strings.TrimPrefix(path, "/"), strings.NewReader(body))
		if err != nil {
			return // not a URL a client could send
		}
		if asJSON {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Header.Set("Authorization", "Bearer "+srv.PrivateKey)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST /sandbox/%s %q: HTTP %d %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code == http.StatusOK || rec.Code >= 400 {
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("POST /sandbox/%s %q: HTTP %d, not JSON: %s", path, body, rec.Code, rec.Body)
			}
		}
	})
}
