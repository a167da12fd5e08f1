package callback

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/testkit/hmacbench"
)

// rewindBody is a request body that can be read again, so that the
// benchmark reuses one request instead of measuring its construction.
type rewindBody struct{ strings.Reader }

func (*rewindBody) Close() error { return nil }

// BenchmarkVerifyCallback measures what a merchant's callback endpoint pays
// per callback: ParseRequest on the extended-form fixture (18 fields, two
// of them attributes) read from an *http.Request, parsed, verified and
// decoded. Its baseline is BenchmarkVerifyCallbackHMACBaseline.
func BenchmarkVerifyCallback(b *testing.B) {
	raw := callbackFixture(b, "extended_completed.txt")
	v, err := NewVerifier([]string{testSecret})
	if err != nil {
		b.Fatal(err)
	}
	body := &rewindBody{}
	r, err := http.NewRequest(http.MethodPost, "/callback", body)
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.ContentLength = int64(len(raw))
	b.ReportAllocs()
	for range b.N {
		body.Reset(raw)
		cb, err := v.ParseRequest(r)
		if err != nil || cb.ID != 9007199254740993 || cb.Attrs["realm"] != "eu-west" {
			b.Fatalf("parse: %v", err)
		}
	}
}

// BenchmarkVerifyCallbackHMACBaseline is bare HMAC-SHA256 over the already
// joined canonical string of the callback of BenchmarkVerifyCallback: the
// floor a verification cannot go below.
func BenchmarkVerifyCallbackHMACBaseline(b *testing.B) {
	values, err := url.ParseQuery(callbackFixture(b, "extended_completed.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var fields []string
	for k, vs := range values {
		if k != signing.Param {
			fields = append(fields, vs...)
		}
	}
	hmacbench.Baseline(b, testSecret, canonicalString(fields), values.Get(signing.Param))
}
