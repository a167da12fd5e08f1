package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"
)

// responseDecoder is one endpoint's answer, decoded through the service
// method that returns it: the decoder suite's view of an endpointCase.
type responseDecoder struct {
	name         string
	method, path string // below /v1/
	fixture      string // a good answer
	// decode calls the method and returns the value of the probe field.
	decode func(ctx context.Context, c *Client) (string, error)
	// probe is the JSON path of a text field: the status when the type has
	// one, else another string the gateway sends.
	probe string
	// probeIsStatus reports whether probe is a status (kept when unknown).
	probeIsStatus bool
	// required are the JSON paths of the fields the gateway always sends.
	required []string
	// integer and money are the paths of an integer and of an amount, ""
	// when the type has none.
	integer, money string
	// essential are the paths, beyond required, of the fields that decide
	// what happened: they must be readable. Every other field is
	// informational: unreadable, it is left zero with a warning.
	essential []string
	// into returns the value the service method decodes the answer into,
	// for the checks and fuzz targets that call the decoding step directly.
	into func() any
}

// mustRead reports whether the field at path fails the call when it cannot
// be read.
func (d responseDecoder) mustRead(path string) bool {
	return slices.Contains(d.required, path) || slices.Contains(d.essential, path)
}

// TestDecoders_HostileAndBrokenAnswers feeds every response type answers
// with missing fields, wrong JSON types, huge numbers, deep nesting,
// invalid UTF-8 and unknown statuses. A missing field or a number no
// gateway sends is an error naming the field, never a zero value; invalid
// UTF-8 is replaced; an unknown status is kept; nothing panics.
func TestDecoders_HostileAndBrokenAnswers(t *testing.T) {
	t.Parallel()
	for _, d := range everyResponseDecoder() {
		t.Run(d.name, func(t *testing.T) {
			good := fixture(t, d.fixture)
			try := func(t *testing.T, body []byte) (string, error) {
				t.Helper()
				c, _ := stubEndpoint(t, d.method, d.path, httpmock.NewBytesResponder(200, body))
				return d.decode(context.Background(), c)
			}
			// requireFieldError checks the error names field; encoding/json
			// names fields inside arrays without the index (types.id).
			requireFieldError := func(t *testing.T, err error, field string) {
				t.Helper()
				var re *ResponseError
				require.ErrorAs(t, err, &re)
				if re.Field != field {
					field = arrayIndex.ReplaceAllString(field, "")
				}
				require.Equal(t, field, re.Field, "error: %v", err)
				require.Contains(t, err.Error(), strconv.Quote(field))
				if d.method == http.MethodPost {
					require.ErrorIs(t, err, ErrOutcomeUnknown, "a POST answered unreadably may have been processed")
				}
			}

			_, err := try(t, good)
			require.NoError(t, err, "the fixture itself")

			for _, field := range d.required {
				t.Run("missing "+field, func(t *testing.T) {
					_, err := try(t, editJSON(t, good, field, nil))
					requireFieldError(t, err, field)
				})
				t.Run("null "+field, func(t *testing.T) {
					_, err := try(t, editJSON(t, good, field, json.RawMessage(`null`)))
					require.Error(t, err)
				})
				for _, wrong := range []string{`{"a":1}`, `[1,2]`} {
					t.Run("wrong type "+field+" "+wrong, func(t *testing.T) {
						_, err := try(t, editJSON(t, good, field, json.RawMessage(wrong)))
						var re *ResponseError
						require.ErrorAs(t, err, &re)
					})
				}
			}

			// requireWarning checks that the call succeeds and reports field
			// as unreadable.
			requireWarning := func(t *testing.T, body []byte, field string) {
				t.Helper()
				_, err := try(t, body)
				require.NoError(t, err, "an informational field never fails the call")
				c, _ := newMockClient(t)
				warnings, err := c.decode(rowFor(t, d.method, d.path), http.StatusOK, body, d.into())
				require.NoError(t, err)
				require.True(t, slices.ContainsFunc(warnings, func(w DecodeWarning) bool { return w.Field == field }), "warnings: %v", warnings)
			}
			huge := map[string]string{"exponent": `1e999999999`, "400 digits": strings.Repeat("9", 400), "negative exponent": `1e-999999999`}
			for name, n := range huge {
				if d.integer != "" {
					t.Run("huge integer "+name, func(t *testing.T) {
						body := editJSON(t, good, d.integer, json.RawMessage(n))
						if d.mustRead(d.integer) {
							_, err := try(t, body)
							requireFieldError(t, err, d.integer)
						} else {
							requireWarning(t, body, d.integer)
						}
					})
				}
				if d.money != "" {
					t.Run("huge amount "+name, func(t *testing.T) {
						for _, v := range []string{n, strconv.Quote(n)} {
							// Amounts are informational in every answer that
							// has one here.
							requireWarning(t, editJSON(t, good, d.money, json.RawMessage(v)), d.money)
						}
					})
				}
			}

			t.Run("a million digits is refused before decoding", func(t *testing.T) {
				field := d.required[0]
				_, err := try(t, editJSON(t, good, field, json.RawMessage(strconv.Quote(strings.Repeat("7", 1_000_000)))))
				var re *ResponseError
				require.ErrorAs(t, err, &re)
				require.ErrorContains(t, err, "digits")
			})

			t.Run("deep nesting", func(t *testing.T) {
				deep := func(levels int) []byte {
					return []byte(strings.Repeat("[", levels) + strings.Repeat("]", levels))
				}
				_, err := try(t, deep(10_001))
				var re *ResponseError
				require.ErrorAs(t, err, &re, "10,001 levels as the body")
				if bytes.HasPrefix(bytes.TrimSpace(good), []byte("{")) {
					// The nesting goes in after encoding: from Go 1.27 on,
					// json.Marshal refuses a RawMessage 10,000 levels deep.
					withDeep := func(levels int) []byte {
						body := editJSON(t, good, "unknown_extra", "DEEP")
						return bytes.Replace(body, []byte(`"DEEP"`), deep(levels), 1)
					}
					_, err = try(t, withDeep(10_000))
					require.ErrorAs(t, err, &re, "10,000 levels in an unknown field")
					_, err = try(t, withDeep(5_000))
					require.NoError(t, err, "5,000 levels in an unknown field are skipped")
				}
			})

			t.Run("JSON null body", func(t *testing.T) {
				_, err := try(t, []byte(" null\n"))
				var re *ResponseError
				require.ErrorAs(t, err, &re)
			})

			if d.probe == "" {
				return
			}
			t.Run("non-UTF-8 is replaced", func(t *testing.T) {
				body := bytes.Replace(editJSON(t, good, d.probe, "@@BAD@@"), []byte("@@BAD@@"), []byte("on\xffho\xc3ld"), 1)
				got, err := try(t, body)
				require.NoError(t, err)
				require.True(t, utf8.ValidString(got), "%q", got)
				require.Equal(t, "on\uFFFDho\uFFFDld", got)
			})
			if d.probeIsStatus {
				t.Run("unknown status is kept", func(t *testing.T) {
					got, err := try(t, editJSON(t, good, d.probe, "on_hold"))
					require.NoError(t, err)
					require.Equal(t, "on_hold", got)
					require.False(t, Status(got).Known())
				})
			}
		})
	}
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// textOf returns text() when the call succeeded, and never a value with an
// error.
func textOf(isNil bool, err error, text func() string) (string, error) {
	if err != nil {
		if !isNil {
			panic("a value returned with an error")
		}
		return "", err
	}
	return text(), nil
}

// editJSON sets the field at path (for example "transactions[0].id" or
// "[0].name") of a JSON document to value, or deletes it when value is nil.
func editJSON(t testing.TB, doc []byte, path string, value any) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // keeps 19-digit ids exact
	var root any
	require.NoError(t, dec.Decode(&root))
	var steps []string
	for _, part := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(part, "[")
		if name != "" {
			steps = append(steps, name)
		}
		if idx != "" {
			steps = append(steps, "["+strings.TrimSuffix(idx, "]"))
		}
	}
	node := root
	for i, step := range steps {
		last := i == len(steps)-1
		if strings.HasPrefix(step, "[") {
			n, err := strconv.Atoi(step[1:])
			require.NoError(t, err)
			arr := node.([]any)
			if last {
				arr[n] = value
				break
			}
			node = arr[n]
			continue
		}
		obj := node.(map[string]any)
		if last {
			if value == nil {
				delete(obj, step)
			} else {
				obj[step] = value
			}
			break
		}
		node = obj[step]
	}
	out, err := json.Marshal(root)
	require.NoError(t, err)
	return out
}

func TestDecoders_WarningsNeverQuoteACardNumberFromTheBody(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "card/getToken", httpmock.NewStringResponder(200, `{"id":"tok","card":{"lastFour":{"n":"4242424242424242"}}}`))
	tok, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{Number: NewCardNumber("4000000000000002"), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("737")})
	require.NoError(t, err, "lastFour is informational")
	require.Equal(t, "tok", tok.ID)
	require.Len(t, tok.Warnings, 1)
	require.Equal(t, "card.lastFour", tok.Warnings[0].Field)
	require.NotContains(t, tok.Warnings[0].String(), "4242424242424242")
}
