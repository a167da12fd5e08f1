package paygate

import (
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/ascii"
)

// FuzzSentSecretsMask feeds answer texts and sent values: whatever the
// text, no card value survives masking as a whole run of digits, and no
// longer value survives at all.
func FuzzSentSecretsMask(f *testing.F) {
	f.Add("card%5Bnumber%5D=4000056655665556&card%5Bsecurity_code%5D=913", "4000056655665556", "913", "jane.roe@wallet.example")
	f.Add("<html>month=07 year 2031</html>", "7", "2031", "JANE ROE")
	f.Add("", "0", "00", "***")
	f.Add("holder JANE ROE, jane+roe", "913", "07", "Jane Roe")
	f.Add("card 4000 0566 5566 5556 or 4000-0566-5566-5556, exp 1230", "4000056655665556", "1230", "O'BRIEN")
	f.Add(`holder O&#39;BRIEN, O&#x27;Brien, "O\u0027BRIEN", O%27BRIEN, O'BRIEN  JR`, "12", "30", "O'BRIEN JR")
	f.Add("pin 12, cvc 987, lang zq (zqx)", "12", "987", "zq")
	f.Fuzz(func(t *testing.T, text, cardA, cardB, other string) {
		s := sentSecrets{{cardA, true}, {cardB, true}, {other, false}}
		got := s.mask(text)
		for _, sec := range s {
			v := sec.value
			switch {
			case v == "" || strings.Contains(v, "*") || (!sec.card && len(v) < 4):
				// Not masked by design (a flag, a small id), or the mask
				// itself.
			case ascii.Digits(v):
				want := strings.TrimLeft(v, "0")
				for _, run := range digitRuns(got) {
					if strings.TrimLeft(run, "0") == want {
						t.Fatalf("digit value %q survives in %q", v, got)
					}
				}
			case len(v) >= 4 && strings.Contains(got, v):
				t.Fatalf("value %q survives in %q", v, got)
			}
		}
	})
}

// FuzzRedirectRefused feeds Location headers: the description names at
// most a host, never the path or query that may carry request data.
func FuzzRedirectRefused(f *testing.F) {
	f.Add("https://login.wall.example/next?number=4000056655665556")
	f.Add("/v1/card/getToken?security_code=913")
	f.Add("http://[::1]:8443/%zz")
	f.Fuzz(func(t *testing.T, location string) {
		got := redirectRefused(location)
		if !strings.HasPrefix(got, "redirect to ") || !strings.HasSuffix(got, " refused: the SDK never follows a redirect") {
			t.Fatalf("unexpected description %q", got)
		}
		if strings.ContainsAny(got, "?/") && !strings.Contains(got, "[") {
			t.Fatalf("description %q quotes more than a host", got)
		}
	})
}

func digitRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}
