package paygatetest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/paygatetest"
)

// BenchmarkHostileRequest measures what each hostile request of
// hostileRequests costs the sandbox to read and refuse, served in process
// without the network, against a baseline in the same run: an ordinary
// small request that is read in full (and refused for its missing
// signature).
func BenchmarkHostileRequest(b *testing.B) {
	srv := paygatetest.NewServer()
	defer srv.Close()
	cases := append([]hostileRequest{{name: "baseline: 60-byte JSON request", method: http.MethodPost,
		contentType: "application/json", body: `{"project":"` + srv.ProjectKey + `","identifier":"u","ip":"192.0.2.1"}`}},
		hostileRequests()...)
	for _, h := range cases {
		b.Run(h.name, func(b *testing.B) {
			target := "/v1/user/resolve"
			if h.query != "" {
				target += "?" + h.query
			}
			// Built once: what is measured is the sandbox's reading, not
			// the parsing of the request line.
			base := httptest.NewRequest(h.method, target, nil)
			base.Header.Set("Content-Type", h.contentType)
			b.SetBytes(int64(len(h.body) + len(h.query)))
			b.ReportAllocs()
			for range b.N {
				req := base.Clone(context.Background())
				req.Body, req.ContentLength = io.NopCloser(strings.NewReader(h.body)), int64(len(h.body))
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code == http.StatusOK {
					b.Fatalf("%s was accepted", h.name)
				}
			}
		})
	}
}
