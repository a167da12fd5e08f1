package paygate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonResponder answers with status and body as JSON.
func jsonResponder(status int, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}

func TestCall_SignsWhatItSendsWithTheProjectAdded(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodPost, "card/newThing", jsonResponder(200, `{"ok":true}`))
	var out json.RawMessage
	err := c.Call(context.Background(), "POST", "/v1/card/newThing", url.Values{"ip": {"203.0.113.7"}, "b": {"2", ""}}, &out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(out))

	r := rec.Only(t)
	assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
	sent := url.Values{}
	for k, vs := range r.Params {
		if k != SignatureParam {
			sent[k] = vs
		}
	}
	assert.Equal(t, url.Values{"project": {testProject}, "ip": {"203.0.113.7"}, "b": {"2", ""}}, sent)
	assert.Equal(t, Sign(sent, testSecret), r.Params.Get(SignatureParam), "the signature is paygate.Sign of what was sent")
}

func TestCall_UnsignedGETsStayUnsigned(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodGet, "payout-types", jsonResponder(200, `{"success":true,"types":[]}`))
	require.NoError(t, c.Call(context.Background(), "get", "payout-types", nil, nil))
	requireUnsigned(t, rec.Only(t))
}

func TestCall_GETIsRetried(t *testing.T) {
	t.Parallel()
	fast := RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	c, rec := stubEndpoint(t, http.MethodGet, "transactions/42", jsonResponder(503, `busy`), WithRetryPolicy(fast))
	err := c.Call(context.Background(), "GET", "transactions/42", nil, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 3, apiErr.Attempts)
	assert.Len(t, rec.Requests(), 3)
}

func TestCall_POSTThatMayHaveArrivedIsNeverRetried(t *testing.T) {
	t.Parallel()
	fast := RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	for name, responder := range map[string]httpmock.Responder{
		"connection reset": httpmock.NewErrorResponder(errors.New("connection reset by peer")),
		"503":              jsonResponder(503, `busy`),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, rec := stubEndpoint(t, http.MethodPost, "card/process", responder, WithRetryPolicy(fast))
			err := c.Call(context.Background(), "POST", "card/process", url.Values{"order_id": {"o-17"}}, nil)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var unknown *OutcomeUnknownError
			require.ErrorAs(t, err, &unknown)
			assert.Equal(t, "o-17", unknown.OrderID)
			assert.Equal(t, KindCharge, unknown.Kind, "a known endpoint keeps its row's kind, for Settle")
			assert.Len(t, rec.Requests(), 1)
		})
	}
}

func TestCall_RedirectIsRefused(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodGet, "balance", func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusFound, "")
		r.Header.Set("Location", "https://elsewhere.test/v1/balance")
		return r, nil
	})
	err := c.Call(context.Background(), "GET", "balance", url.Values{"currency": {"EUR"}}, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusFound, apiErr.HTTPStatus)
	assert.Contains(t, apiErr.Message, "refused")
	assert.Len(t, rec.Requests(), 1)
}

func TestCall_GatewayErrorIsDecoded(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", jsonResponder(400, `{"error":{"code":40301,"message":"Wrong signature"}}`))
	err := c.Call(context.Background(), "GET", "transaction/status", url.Values{"id": {"1"}}, nil)
	require.ErrorIs(t, err, ErrSignatureInvalid)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, CodeSignatureInvalid, apiErr.Code)
}

func TestCall_EchoedSentValueIsMasked(t *testing.T) {
	t.Parallel()
	const iban = "DE89370400440532013000"
	c, _ := stubEndpoint(t, http.MethodPost, "payout/sepa", jsonResponder(400,
		`{"error":{"code":40001,"message":"account `+iban+` holder Jane Doe refused"}}`))
	err := c.Call(context.Background(), "POST", "payout/sepa", url.Values{"iban": {iban}, "holder_name": {"Jane Doe"}, "order_id": {"o-9"}}, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), iban)
	assert.NotContains(t, err.Error(), "Jane Doe")
	assert.Contains(t, err.Error(), "***")
}

func TestCall_NonJSONErrorBodyIsWithheld(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "things", jsonResponder(502, `<html>bad gateway for q=secret-value-1</html>`))
	err := c.Call(context.Background(), "GET", "things", url.Values{"q": {"secret-value-1"}}, nil, WithCallRetryPolicy(NoRetries))
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.HTTPStatus)
	assert.NotContains(t, err.Error(), "secret-value-1")
}

func TestCall_AnswerOverTheSizeLimitFails(t *testing.T) {
	t.Parallel()
	big := `{"pad":"` + string(make([]byte, 2048)) + `"}`
	c, _ := stubEndpoint(t, http.MethodGet, "things", jsonResponder(200, big), WithMaxResponseBytes(1024))
	err := c.Call(context.Background(), "GET", "things", nil, new(json.RawMessage))
	require.ErrorIs(t, err, errBodyTooLarge)
}

func TestCall_GenericContainersKeepEveryDigit(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "transactions/9007199254740993", jsonResponder(200, `{"id":9007199254740993,"status":"completed"}`))
	var out map[string]any
	require.NoError(t, c.Call(context.Background(), "GET", "transactions/9007199254740993", nil, &out))
	assert.Equal(t, json.Number("9007199254740993"), out["id"])
}

func TestCall_StructAnswerDecodesTolerantly(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "transactions/7", jsonResponder(200, `{"id":"7","status":"completed","price":"x"}`))
	var tx Transaction
	require.NoError(t, c.Call(context.Background(), "GET", "transactions/7", nil, &tx))
	assert.Equal(t, ID(7), tx.ID)
	assert.Equal(t, StatusCompleted, tx.Status)
}

func TestCall_RefusesWhatItCannotSend(t *testing.T) {
	t.Parallel()
	c, mock := newSilentMock(t)
	cases := map[string]struct {
		method, path string
		params       url.Values
		field        string
	}{
		"PUT":              {"PUT", "balance", nil, "method"},
		"empty path":       {"GET", "/v1/", nil, "path"},
		"query in path":    {"GET", "balance?currency=EUR", nil, "path"},
		"absolute URL":     {"GET", "https://evil.test/v1/balance", nil, "path"},
		"own project":      {"GET", "balance", url.Values{"project": {"x"}}, "project"},
		"own signature":    {"GET", "balance", url.Values{"signature": {"x"}}, "signature"},
		"parent directory": {"GET", "../balance", nil, "path"},
	}
	for name, tc := range cases {
		err := c.Call(context.Background(), tc.method, tc.path, tc.params, nil)
		requireValidationError(t, err, tc.field)
		_ = name
	}
	assert.Zero(t, mock.GetTotalCallCount())
}

func TestCall_ExtendedOnlyEndpointFailsOnABasicClient(t *testing.T) {
	t.Parallel()
	c, mock := newSilentMock(t, WithForm(FormBasic))
	err := c.Call(context.Background(), "GET", "balance", nil, nil)
	require.ErrorIs(t, err, ErrBasicForm)
	assert.Zero(t, mock.GetTotalCallCount())
}

// wholeToken matches v standing alone: not inside a longer run of letters
// and digits, as a masked value would otherwise be found inside a port, a
// duration or a word.
func wholeToken(v string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9A-Za-z])` + regexp.QuoteMeta(v) + `([^0-9A-Za-z]|$)`)
}

// errorTexts are the ways a merchant may print err: its text, %v, %+v and a
// JSON log record of it.
func errorTexts(err error) []string {
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, timeless)).Error("call failed", "err", err)
	return []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), logged.String()}
}

func TestCall_EchoedValuesAreMaskedWhateverTheirLength(t *testing.T) {
	t.Parallel()
	params := url.Values{"cvc": {"987"}, "pin": {"12"}, "lang": {"zq"}, "holder": {"Al Bo"},
		"order_id": {"ord-77"}, "id": {"9001"}}
	answers := map[string]httpmock.Responder{
		"error object quoting the request": echoRequest(400, true),
		"page quoting the request":         echoRequest(502, false),
		"transport error quoting the body": func(req *http.Request) (*http.Response, error) {
			b, _ := io.ReadAll(req.Body)
			decoded, _ := url.QueryUnescape(string(b))
			return nil, fmt.Errorf("malformed HTTP response %q", decoded)
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logged strings.Builder
			debug := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug,
				ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
					if a.Key == "duration" { // digits of its own ("12.2µs")
						return slog.Attr{}
					}
					return timeless.ReplaceAttr(groups, a)
				}}))
			c, mock := newMockClient(t, WithLogger(debug))
			mock.RegisterResponder(http.MethodPost, testBaseURL+"/v1/card/processV2", answer)
			err := c.Call(context.Background(), "POST", "card/processV2", params, nil)
			require.Error(t, err)
			texts := append(errorTexts(err), logged.String())
			for _, text := range texts {
				for _, v := range []string{"987", "12", "zq", "Al Bo", "Al+Bo"} {
					assert.NotRegexp(t, wholeToken(v), text)
				}
			}
			if name != "page quoting the request" { // a page is withheld whole
				assert.Contains(t, err.Error(), "ord-77", "the order id stays readable")
				assert.Contains(t, err.Error(), "9001", "the transaction id stays readable")
			}
		})
	}
}

func TestCall_PathIsNamedAsTheObserverNamesIt(t *testing.T) {
	t.Parallel()
	const email, number = "jane.roe@mail.example", "4000056655665556"
	unknownPath := "users/" + email + "/cards/" + number
	echoPath := func(req *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(404, `{"error":{"code":40401,"message":"no route `+req.URL.Path+`"}}`), nil
	}
	cases := map[string]struct {
		method, path string
		answer       httpmock.Responder
		form         Form
		named        string
	}{
		"transport error":       {"GET", unknownPath, httpmock.NewErrorResponder(errors.New("connection reset by peer")), FormExtended, "GET other"},
		"unknown outcome":       {"POST", unknownPath, httpmock.NewErrorResponder(errors.New("connection reset by peer")), FormExtended, "POST other"},
		"malformed answer":      {"GET", unknownPath, httpmock.NewStringResponder(200, `not json`), FormExtended, "GET other"},
		"answer echoing a path": {"GET", unknownPath, echoPath, FormExtended, "no route"},
		"known endpoint's id":   {"GET", "transactions/" + email, httpmock.NewErrorResponder(errors.New("connection reset by peer")), FormExtended, "GET transactions/{id}"},
		"basic form":            {"GET", "transactions/" + number, nil, FormBasic, "GET transactions/{id}"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logged strings.Builder
			debug := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: timeless.ReplaceAttr}))
			c, mock := newMockClient(t, WithLogger(debug), WithForm(tc.form))
			if tc.answer != nil {
				mock.RegisterNoResponder(tc.answer)
			}
			err := c.Call(context.Background(), tc.method, tc.path, nil, new(map[string]any))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.named)
			for _, text := range append(errorTexts(err), logged.String()) {
				assert.NotContains(t, text, "jane.roe")
				assert.NotContains(t, text, url.PathEscape(email))
				assert.NotContains(t, text, number)
			}
			if tc.answer != nil {
				assert.Contains(t, logged.String(), "path=", "the attempt is logged")
			}
		})
	}
}

// TestCall_RefusesPercentEncodedPaths: the parent-directory check cannot
// be passed by encoding the dots or the slash, in any letter case.
func TestCall_RefusesPercentEncodedPaths(t *testing.T) {
	t.Parallel()
	c, mock := newSilentMock(t)
	for _, path := range []string{
		"%2e%2e/%2e%2e/admin", "%2E%2e/balance", "/v1/%2E%2E/%2E%2E/admin", "card%2fprocess", "card%2Fprocess",
		"..%2fadmin", "%2e./admin", "transactions/%34%32", "a/./b", "./balance", "a//b", `..\admin`, "a b", "bal\nance",
	} {
		err := c.Call(context.Background(), "GET", path, nil, nil)
		requireValidationError(t, err, "path")
		assert.NotContains(t, err.Error(), path, "the refusal does not quote the path")
	}
	assert.Zero(t, mock.GetTotalCallCount())
}
