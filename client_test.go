package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// pipelineParams exercises every kind of field the pipeline encodes.
type pipelineParams struct {
	User    UserID          `url:"user"`
	Price   decimal.Decimal `url:"price"`
	OrderID string          `url:"order_id,omitempty"`
	Card    *struct {
		N string `url:"number"`
	} `url:"card"`
	ThreeDS bool              `url:"3ds,omitempty"`
	Attrs   map[string]string `url:"attr_,prefix"`
}

func postProcess(c *Client, p any, out any) error {
	return postProcessCtx(context.Background(), c, p, out)
}

func postProcessCtx(ctx context.Context, c *Client, p any, out any) error {
	return c.do(ctx, endpoints[epCharge], p, out, nil)
}

func TestDo_PostSendsSignedFormBody(t *testing.T) {
	c, rec := stubEndpoint(t, http.MethodPost, "card/process", httpmock.NewStringResponder(200, `{"success":true,"id":1}`), WithAppInfo("myshop", "1.2.3"))
	p := &pipelineParams{
		User: "1001", Price: decimal.RequireFromString("149.90"), OrderID: "ORD-1",
		Card: &struct {
			N string `url:"number"`
		}{"4242424242424242"}, ThreeDS: true,
		Attrs: map[string]string{"realm": "eu west"},
	}
	var out Payment
	require.NoError(t, postProcess(c, p, &out))

	r := rec.Only(t)
	require.Equal(t, "/v1/card/process", r.Path)
	requireSignedFields(t, r, map[string]string{
		"user": "1001", "price": "149.90", "order_id": "ORD-1", "card[number]": "4242424242424242",
		"3ds": "1", "attr_realm": "eu west",
	})
	// Byte-exact signature: HMAC over the sorted values, computed here by hand.
	want := Sign(r.Params, testSecret)
	require.Equal(t, want, r.Params.Get("signature"))
	require.Equal(t, "application/json", r.Header.Get("Accept"))
	require.Regexp(t, `^paygate-go/\d+\.\d+\.\d+ go/go[\w.]+ myshop/1\.2\.3$`, r.Header.Get("User-Agent"))
}

func TestStatus_GetSendsSignedQuery(t *testing.T) {
	r := requestSent(t, http.MethodGet, "transaction/status", "transaction_status_refunded.json", func(c *Client) error {
		return errOf(c.Transactions.Status(context.Background(), &TransactionStatusParams{OrderID: "ORD-2026-11-0042"}))
	})
	requireSignedFields(t, r, map[string]string{"order_id": "ORD-2026-11-0042"})
}

func TestDecode_IDsMoneyAndTimesInEveryShape(t *testing.T) {
	c, mock := newMockClient(t)
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transaction/status", httpmock.NewBytesResponder(200, fixture(t, "transaction_status_refunded.json")))
	st, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1000000000000004242})
	require.NoError(t, err)
	require.Equal(t, ID(1000000000000004242), st.ID, "19-digit id sent as a JSON number stays exact")
	require.Equal(t, "149.9", st.Price.String())
	require.True(t, decimal.RequireFromString("4.3471").Equal(st.Fee))
	require.Equal(t, StatusRefunded, st.Status)
	require.Equal(t, StatusCompleted, st.OriginalStatus)
	require.True(t, time.Date(2026, 11, 21, 9, 14, 3, 0, time.UTC).Equal(st.CreatedAt.Time))

	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transaction/status", httpmock.NewBytesResponder(200, fixture(t, "transaction_status_string_id.json")))
	st, err = c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err)
	require.Equal(t, ID(9223372036854775807), st.ID, "19-digit id sent as a JSON string stays exact")
	require.Equal(t, "", st.OrderID)
	require.True(t, decimal.RequireFromString("149.9").Equal(st.Price), "money sent as a JSON number")
	require.True(t, decimal.RequireFromString("4.3471").Equal(st.Fee), "no float64 on the way: 4.3471 stays exact")
	require.True(t, time.Date(2026, 11, 21, 9, 14, 3, 0, time.UTC).Equal(st.CreatedAt.Time))
	require.True(t, time.Date(2026, 11, 21, 9, 14, 7, 0, time.UTC).Equal(st.UpdatedAt.Time))
}

func TestDecode_IDMarshalsAsExactString(t *testing.T) {
	b, err := json.Marshal(struct{ ID ID }{9223372036854775807})
	require.NoError(t, err)
	require.JSONEq(t, `{"ID":"9223372036854775807"}`, string(b))
}

// Every code of the spec's error table maps to its sentinel, by code.
func TestErrors_EveryGatewayCodeMatchesItsSentinel(t *testing.T) {
	sentinels := map[ErrorCode]*Error{
		40001: ErrProjectKeyMissing, 40002: ErrUserIdentifierMissing, 40003: ErrCardNumberMissing,
		40004: ErrCardNumberInvalid, 40005: ErrExpiryInvalid, 40006: ErrSecurityCodeMissing,
		40007: ErrSecurityCodeInvalid, 40008: ErrCardTokenMissing, 40009: ErrCardDataMissing,
		40010: ErrUserEmailMissing, 40011: ErrUserIPMissing, 40012: ErrExpirationMonthMissing,
		40013: ErrExpirationYearMissing, 40014: ErrMerchantDataMissing, 40015: ErrCardholderInvalid,
		40101: ErrSignatureMissing, 40102: ErrAuthTokenMissing, 40301: ErrSignatureInvalid,
		40302: ErrAuthTokenInvalid, 40303: ErrAuthTokenExpired, 40304: ErrCardTokenExpired,
		40305: ErrCardTokenUsed, 40306: ErrPlatformTokenInvalid, 40307: ErrPlatformAuthTokenInvalid,
		40308: ErrUserBlocked, 40309: ErrCardBlocked, 40310: ErrRecurringDisabled,
		40311: ErrRecurringExpired, 40312: ErrCardRememberingDisabled, 40401: ErrProjectNotFound,
		40402: ErrCardTokenInvalid, 40403: ErrTransactionNotFound, 40404: ErrPlatformNotFound,
		40405: ErrReferenceTransactionNotFound, 40406: ErrUserNotFound, 40407: ErrPlatformUserNotFound,
		40501: ErrTransactionCompleted, 40502: ErrRecurringTooFrequent, 40503: ErrRecurringNotCreated,
		40504: ErrNotReversible, 42201: ErrGatewayMisconfigured, 50001: ErrTokenizationFailed,
	}
	require.Len(t, Codes(), 42)
	require.Len(t, sentinels, 42)
	for _, code := range Codes() {
		t.Run(strconv.Itoa(int(code)), func(t *testing.T) {
			sentinel, ok := sentinels[code]
			require.True(t, ok)
			body := fmt.Sprintf(`{"error":{"code":%d,"message":"gateway says %s"}}`, code, code)
			c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(code.HTTPStatus(), body))
			_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 7})
			require.ErrorIs(t, err, sentinel)
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			require.Equal(t, code, apiErr.Code)
			require.Equal(t, code.HTTPStatus(), apiErr.HTTPStatus)
			require.Equal(t, "gateway says "+code.String(), apiErr.Message)
			require.Equal(t, 1, apiErr.Attempts)
			for other, s := range sentinels {
				if other != code {
					require.NotErrorIs(t, err, s)
				}
			}
		})
	}
}

func TestErrors_MappedByBodyCodeWhateverTheStatus(t *testing.T) {
	c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(400, `{"error":{"code":"40101","message":"Signature missing"}}`))
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 7})
	require.ErrorIs(t, err, ErrSignatureMissing)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, 400, apiErr.HTTPStatus)
}

func TestErrors_200CarryingAnErrorObject(t *testing.T) {
	c, mock := newMockClient(t)
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transaction/status", fixtureResponder(t, 200, "error_200_token_used.json"))
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 7})
	require.ErrorIs(t, err, ErrCardTokenUsed)

	rec := record(t, mock, http.MethodPost, "card/process", fixtureResponder(t, 200, "error_200_token_used.json"))
	err = postProcess(c, &pipelineParams{}, &Payment{})
	require.ErrorIs(t, err, ErrCardTokenUsed, "a gateway error is a definite answer, not an unknown outcome")
	require.NotErrorIs(t, err, ErrOutcomeUnknown)
	require.Len(t, rec.Requests(), 1)
}

func TestErrors_NonJSONBodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"502 HTML from a proxy", 502, string(fixture(t, "error_bad_gateway.html")), "502 Bad Gateway"},
		{"empty 500", 500, "", ""},
		{"404 plain text", 404, "no route 4111111111111111", "no route ************1111"},
		{"JSON without code", 503, `{"error":{"message":"down"}}`, `{"error":{"message":"down"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(tt.status, tt.body))
			_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 7})
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			require.Equal(t, tt.status, apiErr.HTTPStatus)
			require.Zero(t, apiErr.Code)
			require.Contains(t, apiErr.Body, tt.want)
			require.LessOrEqual(t, len(apiErr.Body), 200)
			require.NotContains(t, err.Error(), "4111111111111111")
		})
	}
}

func TestDecode_BadSuccessBodies(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		field string
	}{
		{"truncated JSON", string(fixture(t, "transaction_status_truncated.json")), ""},
		{"empty body", "", ""},
		{"HTML with 200", "<html>ok</html>", ""},
		{"id of the wrong type", `{"id":true,"status":"completed"}`, "id"},
		{"id not an integer", `{"id":"12abc","status":"completed"}`, "id"},
		{"missing id", `{"status":"completed","price":"1.00"}`, "id"},
		{"missing status", `{"id":1000000000000000001}`, "status"},
		{"status not text", `{"id":1,"status":{"code":"completed"}}`, "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(200, tt.body))
			st, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 7})
			require.Nil(t, st, "no half-decoded value on error")
			var re *ResponseError
			require.ErrorAs(t, err, &re)
			require.Equal(t, 200, re.HTTPStatus)
			if tt.field != "" {
				require.Contains(t, err.Error(), strconv.Quote(tt.field))
			}
		})
	}
}

func TestDecode_UnknownStatusIsKept(t *testing.T) {
	c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(200, `{"id":1,"status":"partially_settled","new_field":{"x":[1,2]}}`))
	st, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err)
	require.Equal(t, Status("partially_settled"), st.Status)
	require.False(t, st.Status.Known())
}

func TestDecode_BodyOverTheSizeLimit(t *testing.T) {
	big := `{"id":1,"status":"completed","pad":"` + strings.Repeat("x", 2048) + `"}`
	c, _ := stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(200, big), WithMaxResponseBytes(1024))
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.ErrorIs(t, err, errBodyTooLarge)
	require.ErrorContains(t, err, "1024 bytes")

	exact := `{"id":1,"status":"completed"}`
	c, _ = stubEndpoint(t, http.MethodGet, "transaction/status", httpmock.NewStringResponder(200, exact), WithMaxResponseBytes(int64(len(exact))))
	_, err = c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err, "a body of exactly the limit is read")
}

func TestPost_UnreadableAnswerIsOutcomeUnknownWithOrderID(t *testing.T) {
	for name, responder := range map[string]httpmock.Responder{
		"truncated JSON":  httpmock.NewStringResponder(200, `{"success":true,"id":10000`),
		"502 HTML":        httpmock.NewStringResponder(502, "<html>Bad Gateway</html>"),
		"transport error": httpmock.NewErrorResponder(errors.New("connection reset by peer")),
	} {
		t.Run(name, func(t *testing.T) {
			c, rec := stubEndpoint(t, http.MethodPost, "card/process", responder)
			err := postProcess(c, &pipelineParams{User: "1", OrderID: "ORD-77"}, &Payment{})
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var ou *OutcomeUnknownError
			require.ErrorAs(t, err, &ou)
			require.Equal(t, "ORD-77", ou.OrderID)
			require.Contains(t, err.Error(), `"ORD-77"`)
			require.Len(t, rec.Requests(), 1, "never sent twice")
		})
	}
}

func TestDo_ContextCancelledMidRequest(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 2) // one for each request below
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(testProject, testSecret, WithBaseURL(srv.URL))
	require.NoError(t, err)

	// Each call is cancelled once the gateway holds its request.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	start := time.Now()
	_, err = c.Transactions.Status(ctx, &TransactionStatusParams{ID: 1})
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), 5*time.Second, "cancellation ends the call")

	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	err = postProcessCtx(ctx, c, &pipelineParams{OrderID: "ORD-9"}, nil)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, ErrOutcomeUnknown, "the POST was sent before the cancellation")
}

func TestDo_GetRetriedPostNeverAfterConnecting(t *testing.T) {
	c, mock := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	get := record(t, mock, http.MethodGet, "transaction/status", httpmock.ResponderFromMultipleResponses([]*http.Response{
		httpmock.NewStringResponse(503, "busy"),
		httpmock.NewStringResponse(200, `{"id":1,"status":"completed"}`),
	}))
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err)
	require.Len(t, get.Requests(), 2)

	post := record(t, mock, http.MethodPost, "card/process", httpmock.NewStringResponder(503, "busy"))
	err = postProcess(c, &pipelineParams{}, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.Len(t, post.Requests(), 1)
}

func TestDo_PostRetriedWhenConnectionRefused(t *testing.T) {
	// A listener that is closed: connections are refused, nothing can arrive.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	c, err := NewClient(testProject, testSecret, WithBaseURL("http://"+addr),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	require.NoError(t, err)
	err = postProcess(c, &pipelineParams{OrderID: "ORD-1"}, nil)
	require.NotErrorIs(t, err, ErrOutcomeUnknown, "a refused connection proves nothing was sent")
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, 3, ne.Attempts)
}

func TestNewClient_Validation(t *testing.T) {
	_, err := NewClient("", "sk")
	require.ErrorContains(t, err, "project")
	_, err = NewClient("pk", "")
	require.ErrorContains(t, err, "private key")
	_, err = NewClient("pk", "sk")
	require.ErrorContains(t, err, "WithBaseURL")
	_, err = NewClient("pk", "sk", WithBaseURL("gateway.example.com"))
	require.ErrorContains(t, err, "absolute")
	_, err = NewClient("pk", "sk", WithBaseURL("https://gw.example.com"), WithAppInfo("my shop", "1"))
	require.Error(t, err)
	c, err := NewClient("pk", "sk", WithBaseURL("https://gw.example.com/"), WithForm(FormBasic))
	require.NoError(t, err)
	require.Equal(t, "https://gw.example.com/v1/", c.apiPrefix)
	require.Equal(t, FormBasic, c.Form())
}

func TestClient_PrivateKeyNeverPrinted(t *testing.T) {
	const secret = "sk_live_TOPSECRET_9f8e7d"
	c, err := NewClient("pk_live", secret, WithBaseURL("https://gw.example.com"))
	require.NoError(t, err)
	var buf bytes.Buffer
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		fmt.Fprintf(&buf, verb+"\n", c)
		fmt.Fprintf(&buf, verb+"\n", *c.Users)
	}
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("client", "client", c)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("client", "client", c)
	require.NotContains(t, buf.String(), secret)
	require.NotContains(t, buf.String(), fmt.Sprintf("%x", secret))
	require.Contains(t, buf.String(), "pk_live")
}

func TestLogging_OneRecordPerAttemptWithoutSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, _ := stubEndpoint(t, http.MethodPost, "card/process", httpmock.NewStringResponder(200, `{"success":true}`), WithLogger(logger))
	p := &pipelineParams{Card: &struct {
		N string `url:"number"`
	}{"4242424242424242"}}
	require.NoError(t, postProcess(c, p, nil))
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	require.Equal(t, "POST", rec["method"])
	require.Equal(t, "card/process", rec["path"])
	require.EqualValues(t, 200, rec["status"])
	require.EqualValues(t, 1, rec["attempt"])
	require.Contains(t, rec, "duration")
	require.NotContains(t, buf.String(), "4242424242424242")
	require.NotContains(t, buf.String(), testSecret)
}

func TestTransportErrors_NeverCarryTheQuery(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	c, err := NewClient(testProject, testSecret, WithBaseURL("http://"+addr), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	type tokenLike struct {
		Number string `url:"number"`
	}
	err = c.do(context.Background(), endpoints[epTokenize], &tokenLike{"4242424242424242"}, nil, nil)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "4242424242424242")
	require.Contains(t, err.Error(), "card/getToken")
}

func TestBasicForm_ExtendedOnlyEndpointFailsLocally(t *testing.T) {
	c, mock := newMockClient(t, WithForm(FormBasic))
	err := c.do(context.Background(), endpoints[epBalance], nil, nil, nil)
	require.ErrorIs(t, err, ErrBasicForm)
	require.Zero(t, mock.GetTotalCallCount())
}

func TestDo_EndedContextSendsNothingAndIsNotAnUnknownOutcome(t *testing.T) {
	c, mock := newMockClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := postProcessCtx(ctx, c, &pipelineParams{OrderID: "ORD-1"}, nil)
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, ErrOutcomeUnknown)
	require.Zero(t, mock.GetTotalCallCount())
}

func TestDefaultClient_RedirectsAreNotFollowed(t *testing.T) {
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the redirect was followed: the signed body went to another host")
	}))
	defer elsewhere.Close()
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/card/process", http.StatusTemporaryRedirect)
	}))
	defer gw.Close()
	c, err := NewClient(testProject, testSecret, WithBaseURL(gw.URL))
	require.NoError(t, err)
	err = postProcess(c, &pipelineParams{OrderID: "ORD-1"}, &Payment{})
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusTemporaryRedirect, apiErr.HTTPStatus)
}
