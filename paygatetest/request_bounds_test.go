package paygatetest_test

import (
	"cmp"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// hostileRequest is a request an outsider can send without knowing any
// key: the method is unsigned-readable, so only the reading stands between
// the body and the sandbox's memory and time.
type hostileRequest struct {
	name        string
	path        string // /v1/user/resolve when empty
	method      string // HTTP method
	contentType string
	query       string
	body        string
	message     string // what the 40000 answer names
	heapBudget  uint64 // bytes the whole exchange may allocate
}

// nearlyMiB is a body size just under the sandbox's 1 MiB bound.
const nearlyMiB = 1<<20 - 64

// longKeyOverEmptyArrays is the costliest JSON body of the old reader: a
// 512 KiB name whose value is an array of empty arrays, each of which made
// the reader build its 512 KiB key again.
func longKeyOverEmptyArrays() string {
	var b strings.Builder
	b.WriteString(`{"` + strings.Repeat("k", 512<<10) + `":[[]`)
	for b.Len() < nearlyMiB-3 {
		b.WriteString(`,[]`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// manyPairs is a form of n distinct empty parameters, up to size bytes.
func manyPairs(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size-16; i++ {
		b.WriteString("p" + strconv.Itoa(i) + "=&")
	}
	return b.String()
}

func hostileRequests() []hostileRequest {
	const json, form = "application/json", "application/x-www-form-urlencoded"
	return []hostileRequest{
		{name: "1 MiB JSON of a long key over empty arrays", method: http.MethodPost, contentType: json,
			body: longKeyOverEmptyArrays(), message: "parameter name is longer than 256 bytes", heapBudget: 16 << 20},
		{name: "JSON nested 500,000 levels", method: http.MethodPost, contentType: json,
			body: `{"a":` + strings.Repeat("[", 500000), message: "nested deeper than 8 levels", heapBudget: 1 << 20},
		{name: "JSON of 300,000 empty objects", method: http.MethodPost, contentType: json,
			body: `{"a":[{}` + strings.Repeat(`,{}`, 300000) + `]}`, message: "more than 256 parameters", heapBudget: 1 << 20},
		{name: "form of 90,000 parameters", method: http.MethodPost, contentType: form,
			body: manyPairs(nearlyMiB), message: "more than 256 parameters", heapBudget: 1 << 20},
		{name: "query string of 90,000 parameters", method: http.MethodGet,
			query: manyPairs(nearlyMiB), message: "more than 256 parameters", heapBudget: 16 << 20}, // net/http reads a 1 MiB request line into about 6 MiB
		{name: "JSON name of 1 MiB", method: http.MethodPost, contentType: json,
			body: `{"` + strings.Repeat("k", nearlyMiB) + `":1}`, message: "parameter name is longer than 256 bytes", heapBudget: 1 << 20},
		{name: "form name of 1 MiB", method: http.MethodPost, contentType: form,
			body: strings.Repeat("k", nearlyMiB) + "=1", message: "parameter name is longer than 256 bytes", heapBudget: 1 << 20},
		{name: "Content-Type of 900 KiB of parameters", method: http.MethodPost, contentType: json + ";" + strings.TrimSuffix(strings.ReplaceAll(manyPairs(900<<10), "=&", "=1;"), ";"),
			body: `{"a":` + strings.Repeat("[", 100), message: "nested deeper than 8 levels", heapBudget: 8 << 20}, // net/http reads a 1 MiB header into about 6 MiB
		{name: "JSON value of 1 MiB", method: http.MethodPost, contentType: json,
			body: `{"identifier":"` + strings.Repeat("v", nearlyMiB) + `"}`, message: "identifier is longer than 4096 bytes", heapBudget: 1 << 20},
	}
}

// send sends h to the sandbox at base and returns the status and answer.
func (h hostileRequest) send(t testing.TB, hc *http.Client, base string) (int, map[string]any) {
	t.Helper()
	status, body := h.sendRaw(t, hc, base)
	out, err := decodeReader(strings.NewReader(body))
	require.NoError(t, err)
	return status, out
}

// sendRaw sends h to the sandbox at base and returns the status and body.
func (h hostileRequest) sendRaw(t testing.TB, hc *http.Client, base string) (int, string) {
	t.Helper()
	target := base + cmp.Or(h.path, "/v1/user/resolve")
	if h.query != "" {
		target += "?" + h.query
	}
	req, err := http.NewRequest(h.method, target, strings.NewReader(h.body))
	require.NoError(t, err)
	if h.contentType != "" {
		req.Header.Set("Content-Type", h.contentType)
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// Each hostile request is refused with 40000 naming the bound it passed,
// and reading it costs a bounded amount of memory, measured around the
// whole exchange (client and server). Not parallel: other tests would
// allocate during the measurement.
func TestHostileRequests_AreRefusedWithBoundedWork(t *testing.T) {
	srv := paygatetest.NewServer()
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	for _, h := range hostileRequests() {
		t.Run(h.name, func(t *testing.T) {
			var status int
			var out map[string]any
			heap := paygatetest.AllocatedBy(func() { status, out = h.send(t, hc, srv.URL) })
			t.Logf("%d KiB allocated", heap>>10)
			assert.Less(t, heap, h.heapBudget, "bytes allocated by the exchange")
			requireError(t, status, out, 40000)
			assert.Contains(t, out["error"].(map[string]any)["message"], h.message)
		})
	}
}

// The ACS page, which a payer's browser reaches without any key, reads its
// form with the same bounds.
func TestHostileRequests_ToTheACSPageAreRefusedWithBoundedWork(t *testing.T) {
	srv := paygatetest.NewServer()
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	h := hostileRequest{path: "/acs", method: http.MethodPost, contentType: "application/x-www-form-urlencoded",
		body: manyPairs(nearlyMiB)}
	var status int
	var body string
	heap := paygatetest.AllocatedBy(func() { status, body = h.sendRaw(t, hc, srv.URL) })
	t.Logf("%d KiB allocated", heap>>10)
	assert.Less(t, heap, uint64(1<<20), "bytes allocated by the exchange")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, "more than 256 parameters")
}
