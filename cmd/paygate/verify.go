package main

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
)

// expectedPrefixLen is how many hex digits of the expected signature verify
// prints without --show-expected: 32 of its 256 bits. They tell a received
// signature that is the expected one mangled (cut, re-cased) from one of
// other values or another key, and forge nothing: a callback handler
// compares all 64 digits, and the 56 not shown are as unguessable as ever.
const expectedPrefixLen = 8

func newVerifyCmd(cfg *config) *cobra.Command {
	var body string
	var showExpected bool
	cmd := &cobra.Command{
		Use:   "verify [--body FILE|-] [name=value ...]",
		Short: "Verify a callback's (or request's) signature against the private key",
		Long: `Verify the signature field of a callback or request body (--body FILE, or
--body - for standard input; or name=value arguments) against the private key
($PAYGATE_SECRET). Exit 0 when it verifies, 3 when it does not.

An HMAC cannot tell which value differs. When the signature does not verify,
verify prints the canonical string it computed (compare it with the one your
side signed), the received signature and the first 8 hex digits of the
expected one, and the values that look reformatted on the way (spaces around
a value, a number in exponent form or rounded through a float, an amount
with unusual decimals, true/false where the gateway sends 1/0, a value still
URL-encoded, invalid UTF-8). Control characters of the body print escaped
(\x1b, \n).

The whole expected signature is printed only with --show-expected: for a
forged body it is the signature that makes the forgery verify, which a
callback handler then accepts. 8 of its 64 hex digits forge nothing.`,
		Example: `  PAYGATE_SECRET=... paygate verify --body callback.txt
  pbpaste | paygate verify --body - --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, params, err := cfg.keyAndParams(args, body)
			if err != nil {
				return err
			}
			expected := paygate.Sign(params, secret)
			v := verification{
				Canonical:      paygate.CanonicalString(params),
				ExpectedPrefix: expected[:expectedPrefixLen],
				Received:       params.Get(paygate.SignatureParam),
				Suspects:       reformatted(params),
			}
			if showExpected {
				v.Expected = expected
			}
			v.Valid = paygate.VerifySignature(params, secret) == nil
			if err := cfg.emit(v, v.print); err != nil {
				return err
			}
			if !v.Valid {
				return &checkFailed{msg: "the signature does not verify"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&body, "body", "", "read the fields from a form or JSON body in FILE (- for standard input)")
	cmd.Flags().BoolVar(&showExpected, "show-expected", false, "print the whole expected signature. Dangerous: for a forged body it is the "+
		"signature that makes the forgery verify (callback.NewHandler accepts it); only for bodies you made, never into a shared log")
	return cmd
}

// verification is what verify prints.
type verification struct {
	Valid     bool   `json:"valid"`
	Canonical string `json:"canonical"`
	// ExpectedPrefix is the expected signature's first expectedPrefixLen
	// hex digits.
	ExpectedPrefix string `json:"expected_prefix"`
	// Expected is the whole expected signature, with --show-expected only.
	Expected string    `json:"expected,omitempty"`
	Received string    `json:"received"`
	Suspects []suspect `json:"suspects,omitempty"`
}

// suspect is a value that looks reformatted, and why.
type suspect struct {
	Field string `json:"field"`
	Value string `json:"value"`
	Why   string `json:"why"`
}

// print prints v as text, the body's values printable.
func (v verification) print(w io.Writer) {
	if v.Valid {
		fmt.Fprintln(w, "signature verifies")
		fmt.Fprintln(w, "canonical:", printable(v.Canonical))
		return
	}
	fmt.Fprintln(w, "signature does NOT verify")
	fmt.Fprintln(w, "canonical:", printable(v.Canonical))
	if v.Expected != "" {
		fmt.Fprintln(w, "expected: ", v.Expected)
	} else {
		fmt.Fprintf(w, "expected:  %s... (the first %d hex digits; --show-expected prints all)\n", v.ExpectedPrefix, expectedPrefixLen)
	}
	received := printable(v.Received)
	if received == "" {
		received = "(no signature field)"
	}
	fmt.Fprintln(w, "received: ", received)
	if len(v.Suspects) == 0 {
		fmt.Fprintln(w, "no value looks reformatted: check the key, and that every field sent was kept (empty ones too)")
	}
	for _, s := range v.Suspects {
		fmt.Fprintf(w, "suspect:   %s=%q: %s\n", printable(s.Field), s.Value, s.Why)
	}
}

var (
	exponentForm = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?[eE][-+]?[0-9]+$`)
	decimalForm  = regexp.MustCompile(`^-?[0-9]+\.([0-9]+)$`)
	percentForm  = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
)

// reformatted lists the values that look changed on their way from the
// signer, in key order.
func reformatted(params url.Values) []suspect {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []suspect
	for _, k := range keys {
		if k == paygate.SignatureParam {
			continue
		}
		for _, v := range params[k] {
			if why := looksReformatted(v); why != "" {
				out = append(out, suspect{Field: k, Value: v, Why: why})
			}
		}
	}
	return out
}

// looksReformatted says why v looks changed on its way, or "".
func looksReformatted(v string) string {
	switch {
	case !utf8.ValidString(v) || strings.ContainsRune(v, utf8.RuneError):
		return "not valid UTF-8: a character set conversion on the way?"
	case strings.TrimSpace(v) != v:
		return "spaces around the value: trimmed or padded on one side?"
	case v == "true" || v == "false":
		return "the gateway signs booleans as 1 and 0 (an empty string for false in a JSON body)"
	case exponentForm.MatchString(v):
		return "a number in exponent form: written from a float on one side?"
	case percentForm.MatchString(v):
		return "still URL-encoded: decoded once too few, or encoded twice?"
	case roundedThroughFloat(v):
		return "above 2^53 and exactly a float64: an id decoded through a float may have lost its last digits"
	}
	if m := decimalForm.FindStringSubmatch(v); m != nil && len(m[1]) != 2 && len(m[1]) != 4 {
		return "an amount with " + strconv.Itoa(len(m[1])) + " decimals: the extended form writes 10.00 and 9.7100, the basic 10 and 9.71; reformatting one changes the signature"
	}
	return ""
}

// roundedThroughFloat reports whether v is an integer beyond 2^53 that a
// float64 holds exactly: what a 19-digit id becomes once it went through
// one (9007199254740993 comes back as 9007199254740992).
func roundedThroughFloat(v string) bool {
	n, ok := new(big.Int).SetString(v, 10)
	if !ok || n.CmpAbs(big.NewInt(1<<53)) <= 0 || len(v) > 20 {
		return false
	}
	f, acc := new(big.Float).SetInt(n).Float64()
	return acc == big.Exact && !math.IsInf(f, 0)
}
