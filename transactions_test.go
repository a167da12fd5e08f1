package paygate

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const txBigID ID = 9007199254740993123 // above 2^53: a float64 would round it

func TestReverse_ExtendedSendsSignedFieldsAndDecodesTransaction(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodPost, "transaction/reverse", "transaction_reverse_extended.json", func(c *Client) (*Payment, error) {
		return c.Transactions.Reverse(context.Background(), &ReverseParams{
			ID: txBigID, Amount: decimal.RequireFromString("25.50"), Comment: "customer returned the goods",
		})
	})
	assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
	requireSignedFields(t, r, map[string]string{"id": "9007199254740993123", "amount": "25.50", "comment": "customer returned the goods"})

	assert.True(t, got.Success)
	assert.Equal(t, txBigID, got.ID)
	assert.Equal(t, ID(9007199254740991001), got.ReferenceID)
	assert.Equal(t, "ord-2026-0042", got.OrderID)
	assert.True(t, decimal.RequireFromString("25.50").Equal(got.Price))
	assert.Equal(t, "0.765", got.Fee.String())
	assert.Equal(t, TypeRefund, got.Type)
	assert.Equal(t, StatusCompleted, got.Status)
	require.NotNil(t, got.Card)
	assert.Equal(t, "Example Bank", got.Card.BankName)
	require.NotNil(t, got.User)
	assert.Equal(t, UserID("31337"), got.User.ID)
}

func TestReverse_BasicFormAnswerDecodesToSuccessOnly(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodPost, "transaction/reverse", "transaction_reverse_basic.json", func(c *Client) (*Payment, error) {
		return c.Transactions.Reverse(context.Background(), &ReverseParams{OrderID: "ord-2026-0042", Amount: decimal.NewFromInt(10)})
	}, WithForm(FormBasic))
	assert.Equal(t, &Payment{Success: true}, got)
	requireSignedFields(t, r, map[string]string{"order_id": "ord-2026-0042", "amount": "10"})
}

func TestReverse_SuccessFalseIsErrDeclined(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "transaction/reverse", 200, "transaction_reverse_declined.json")

	got, err := c.Transactions.Reverse(context.Background(), &ReverseParams{ID: txBigID, Amount: decimal.NewFromInt(1)})
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, ErrDeclined)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a declined reversal reached the gateway and was refused")
	var de *DeclinedError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "transaction/reverse", de.Path)
}

func TestReverse_GatewayErrors(t *testing.T) {
	t.Parallel()
	specStatus := map[ErrorCode]int{CodeNotReversible: 405, CodeTransactionNotFound: 404, CodeSignatureInvalid: 403}
	reverse := reverseWith(&ReverseParams{ID: txBigID, Amount: decimal.NewFromInt(5)})
	testGatewayErrors(t, http.MethodPost, "transaction/reverse", reverse, []gatewayErrorCase{
		{"not reversible is ErrNotReversible", "error_not_reversible.json", ErrNotReversible},
		{"unknown transaction is ErrTransactionNotFound", "error_transaction_not_found.json", ErrTransactionNotFound},
		{"bad signature is ErrSignatureInvalid", "error_signature_invalid.json", ErrSignatureInvalid},
	}, func(t *testing.T, err error) {
		var apiErr *Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, specStatus[apiErr.Code], apiErr.HTTPStatus, "the spec's status for the code")
	})
}

func TestCreate_SendsSignedFieldsAndBuildsRedirectURL(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodPost, "transaction/create", "transaction_create.json", func(c *Client) (*AlternativePayment, error) {
		return c.Transactions.Create(context.Background(), &AlternativePaymentParams{
			User: "customer-8812", DisplayName: "Jane Roe", PaymentMethod: MethodQiwi,
			Price: decimal.RequireFromString("1234.57"), Currency: "RUB", Email: "jane@example.com", IP: "203.0.113.9",
			UserAgent: "Mozilla/5.0", Phone: "79161234567", Locale: "ru", OrderID: "ord-77",
			Description: "Premium plan", SuccessURL: "https://shop.test/ok", FailURL: "https://shop.test/fail",
		})
	}, WithCheckoutURL("https://checkout.test/pay/"))
	requireSignedFields(t, r, map[string]string{
		"user": "customer-8812", "display_name": "Jane Roe", "payment_method": "qiwi", "price": "1234.57",
		"currency": "RUB", "email": "jane@example.com", "ip": "203.0.113.9", "ua": "Mozilla/5.0",
		"phone": "79161234567", "locale": "ru", "order_id": "ord-77", "description": "Premium plan",
		"success_url": "https://shop.test/ok", "fail_url": "https://shop.test/fail",
	})

	assert.Equal(t, ID(9223372036854770001), got.ID)
	assert.Equal(t, "1234.567890123456789", got.Amount.String(), "amount must decode exactly from the JSON number")
	assert.Equal(t, "RUB", got.Currency)
	assert.Equal(t, StatusOpened, got.Status)
	assert.Equal(t, "https://checkout.test/pay/confirm/9223372036854770001/", got.RedirectURL)
}

func TestCreate_NumericIDAndDefaultCheckoutURL(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodPost, "transaction/create", 200, "transaction_create_numeric_id.json")

	got, err := c.Transactions.Create(context.Background(), validAlternativePayment())
	require.NoError(t, err)
	assert.Equal(t, ID(9223372036854770002), got.ID)
	assert.Equal(t, testBaseURL+"/confirm/9223372036854770002/", got.RedirectURL)
}

func TestCreate_MissingIDIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodPost, "transaction/create", httpmock.NewStringResponder(200, `{"amount":10,"currency":"USD","status":"opened"}`))

	p := validAlternativePayment()
	p.OrderID = "ord-9"
	_, err := c.Transactions.Create(context.Background(), p)
	require.ErrorIs(t, err, ErrOutcomeUnknown, "an unreadable answer to a POST may hide a created payment")
	requireResponseError(t, err, "id")
	var ou *OutcomeUnknownError
	require.ErrorAs(t, err, &ou)
	assert.Equal(t, "ord-9", ou.OrderID)
}

func validAlternativePayment() *AlternativePaymentParams {
	return &AlternativePaymentParams{
		User: "customer-8812", PaymentMethod: MethodPayPal, Price: decimal.NewFromInt(10), Currency: "USD",
		Description: "Premium plan", SuccessURL: "https://shop.test/ok", FailURL: "https://shop.test/fail",
	}
}

func TestCreate_Validation(t *testing.T) {
	t.Parallel()
	tests := []editCase[AlternativePaymentParams]{
		{"user required", func(p *AlternativePaymentParams) { p.User = "" }, "user"},
		{"payment method required", func(p *AlternativePaymentParams) { p.PaymentMethod = "" }, "payment_method"},
		{"unknown payment method", func(p *AlternativePaymentParams) { p.PaymentMethod = "bitcoin" }, "payment_method"},
		{"price required", func(p *AlternativePaymentParams) { p.Price = decimal.Zero }, "price"},
		{"price positive", func(p *AlternativePaymentParams) { p.Price = decimal.NewFromInt(-1) }, "price"},
		{"currency required", func(p *AlternativePaymentParams) { p.Currency = "" }, "currency"},
		{"currency three letters", func(p *AlternativePaymentParams) { p.Currency = "us" }, "currency"},
		{"description required", func(p *AlternativePaymentParams) { p.Description = "" }, "description"},
		{"success url required", func(p *AlternativePaymentParams) { p.SuccessURL = "" }, "success_url"},
		{"fail url required", func(p *AlternativePaymentParams) { p.FailURL = "" }, "fail_url"},
		{"qiwi needs a phone", func(p *AlternativePaymentParams) { p.PaymentMethod = MethodQiwi }, "phone"},
		{"phone digits only", func(p *AlternativePaymentParams) { p.Phone = "+7 916 123-45-67" }, "phone"},
		{"ua at most 255", func(p *AlternativePaymentParams) { p.UserAgent = strings.Repeat("a", 256) }, "ua"},
		{"locale three letters", func(p *AlternativePaymentParams) { p.Locale = "rus" }, "locale"},
		{"order id at most 64", func(p *AlternativePaymentParams) { p.OrderID = strings.Repeat("o", 65) }, "order_id"},
	}
	testRejectedLocally(t, createWith, edited(validAlternativePayment, tests), nil)
}

func createWith(p *AlternativePaymentParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Transactions.Create(context.Background(), p)) }
}

func TestCreate_AcceptsEveryDocumentedMethod(t *testing.T) {
	t.Parallel()
	for _, m := range []PaymentMethod{MethodPayPal, MethodQiwi, MethodYandexMoneyWallet, MethodYandexMoneyWalletV2,
		MethodWebMoneyWME, MethodWebMoneyWMZ, MethodWebMoneyWMR} {
		p := validAlternativePayment()
		p.PaymentMethod, p.Phone = m, "79161234567"
		assert.NoError(t, p.validate(FormExtended), m)
	}
}

func TestReverse_Validation(t *testing.T) {
	t.Parallel()
	testRejectedLocally(t, reverseWith, []rejectCase[ReverseParams]{
		{"nil params", nil, "id"},
		{"neither id nor order id", &ReverseParams{Amount: decimal.NewFromInt(1)}, "id"},
		{"both id and order id", &ReverseParams{ID: txBigID, OrderID: "o", Amount: decimal.NewFromInt(1)}, "order_id"},
		{"amount required", &ReverseParams{ID: txBigID}, "amount"},
		{"amount positive", &ReverseParams{ID: txBigID, Amount: decimal.NewFromInt(-3)}, "amount"},
		{"order id at most 64", &ReverseParams{OrderID: strings.Repeat("o", 65), Amount: decimal.NewFromInt(1)}, "order_id"},
	}, nil)
}

func reverseWith(p *ReverseParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Transactions.Reverse(context.Background(), p)) }
}

func TestStatus_SignedByOrderIDAndDecodesExactly(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodGet, "transaction/status", "transaction_status.json", func(c *Client) (*TransactionStatus, error) {
		return c.Transactions.Status(context.Background(), &StatusParams{OrderID: "ord-2026-0042"})
	})
	requireSignedFields(t, r, map[string]string{"order_id": "ord-2026-0042"})
	assert.Equal(t, txBigID, got.ID)
	assert.Equal(t, "0.765", got.Fee.String())
	assert.Equal(t, StatusCompleted, got.OriginalStatus)
}

func TestGet_SignedByPathAndDecodesCamelCase(t *testing.T) {
	t.Parallel()
	got, r := exchange(t, http.MethodGet, "transactions/9007199254740993123", "transactions_by_id.json", func(c *Client) (*Transaction, error) {
		return c.Transactions.Get(context.Background(), txBigID)
	})
	requireSignedFields(t, r, map[string]string{})

	assert.Equal(t, txBigID, got.ID)
	assert.Equal(t, ID(0), got.ReferenceID)
	assert.Equal(t, "card", got.Method)
	assert.Equal(t, StatusRefunded, got.Status)
	assert.Equal(t, StatusCompleted, got.OriginalStatus)
	assert.Equal(t, time.Date(2026, 3, 14, 9, 20, 1, 0, time.UTC), got.CreatedAt.UTC())
	require.NotNil(t, got.Card)
	assert.Equal(t, 2029, got.Card.ExpirationYear)
}

func TestGet_MissingStatusNamesTheField(t *testing.T) {
	t.Parallel()
	requireMalformedAnswer(t, http.MethodGet, "transactions/9007199254740993123", fixtureResponder(t, 200, "transactions_by_id_missing_status.json"), "status", getWith(txBigID))
}

func getWith(id ID) func(*Client) error {
	return func(c *Client) error { return errOf(c.Transactions.Get(context.Background(), id)) }
}

func TestGet_UnknownIDIsErrTransactionNotFound(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transactions/9007199254740993123", 404, "error_transaction_not_found.json")

	_, err := c.Transactions.Get(context.Background(), txBigID)
	assert.ErrorIs(t, err, ErrTransactionNotFound)
}

func TestGet_RejectsZeroID(t *testing.T) {
	t.Parallel()
	requireRejectedLocally(t, "id", getWith(0))
}

func TestList_SendsEveryFilterSigned(t *testing.T) {
	t.Parallel()
	berlin := time.FixedZone("CET", 3600)
	page, r := exchange(t, http.MethodGet, "transactions", "transactions_list_page1.json", func(c *Client) (*TransactionPage, error) {
		return c.Transactions.List(context.Background(), &ListParams{
			OrderID: "ord-2026-0042", Status: StatusCompleted, Type: TypePayment,
			Created: TimeRange{From: time.Date(2026, 3, 1, 1, 0, 0, 0, berlin), To: time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)},
			Updated: TimeRange{From: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
			Page:    2, Limit: 50,
		})
	})
	requireSignedFields(t, r, map[string]string{
		"orderId": "ord-2026-0042", "status": "completed", "type": "payment",
		"created[from]": "2026-03-01T00:00:00Z", "created[to]": "2026-03-31T00:00:00Z",
		"updated[from]": "2026-03-02T00:00:00Z", "page": "2", "limit": "50",
	})
	assert.Equal(t, 5, page.TotalCount)
	require.Len(t, page.Transactions, 2)
	assert.Equal(t, ID(9007199254740993101), page.Transactions[0].ID)
	assert.Equal(t, StatusFailed, page.Transactions[0].Status)
}

func TestList_TotalCountAsString(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transactions", 200, "transactions_list_single.json")
	page, err := c.Transactions.List(context.Background(), &ListParams{OrderID: "ord-2026-0042"})
	require.NoError(t, err)
	assert.Equal(t, 1, page.TotalCount)
}

func TestList_TransactionWithoutStatusNamesItsIndex(t *testing.T) {
	t.Parallel()
	requireMalformedAnswer(t, http.MethodGet, "transactions", fixtureResponder(t, 200, "transactions_list_missing_status.json"), "transactions[1].status",
		listWith(&ListParams{OrderID: "ord-2026-0042"}))
}

func TestList_Validation(t *testing.T) {
	t.Parallel()
	testRejectedLocally(t, listWith, []rejectCase[ListParams]{
		{"nil params", nil, "orderId"},
		{"order id required", &ListParams{}, "orderId"},
		{"order id at most 64", &ListParams{OrderID: strings.Repeat("o", 65)}, "orderId"},
	}, nil)
}

func listWith(p *ListParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Transactions.List(context.Background(), p)) }
}

func TestExtendedOnlyEndpoints_FailLocallyInBasicForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	calls := map[string]func(c *Client) error{
		"transaction/create": func(c *Client) error { return errOf(c.Transactions.Create(ctx, validAlternativePayment())) },
		"transactions/{id}":  getWith(txBigID),
		"transactions":       func(c *Client) error { return errOf(c.Transactions.List(ctx, &ListParams{OrderID: "o"})) },
		"transactions (All)": func(c *Client) error {
			for _, err := range c.Transactions.All(ctx, &ListParams{OrderID: "o"}) {
				return err
			}
			return nil
		},
		"payout":  func(c *Client) error { return errOf(c.Payouts.Create(ctx, validSEPAPayout())) },
		"balance": balanceWith(nil),
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			c, mock := newMockClient(t, WithForm(FormBasic))
			mock.RegisterNoResponder(httpmock.NewStringResponder(200, `{}`))
			require.ErrorIs(t, call(c), ErrBasicForm)
			assert.Zero(t, mock.GetTotalCallCount())
		})
	}
}

// txPagedResponder answers GET transactions with testdata's page files by
// the page parameter.
func txPagedResponder(t *testing.T, pages map[string]string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		name, ok := pages[req.URL.Query().Get("page")]
		if !ok {
			t.Errorf("page %q should not have been fetched", req.URL.Query().Get("page"))
			return httpmock.NewStringResponse(500, "unexpected page"), nil
		}
		if strings.HasPrefix(name, "{") {
			return httpmock.NewStringResponse(500, name), nil
		}
		return fixtureResponder(t, 200, name)(req)
	}
}

func txPageNumbers(rec *recorder) []string {
	var pages []string
	for _, r := range rec.Requests() {
		pages = append(pages, r.Params.Get("page"))
	}
	return pages
}

// allIDs ranges over the listing p on c, requiring each step to succeed,
// and returns the ids in the order they came.
func allIDs(t *testing.T, c *Client, p *ListParams) []ID {
	t.Helper()
	var ids []ID
	for tx, err := range c.Transactions.All(context.Background(), p) {
		require.NoError(t, err)
		ids = append(ids, tx.ID)
	}
	return ids
}

var txThreePages = map[string]string{
	"1": "transactions_list_page1.json", "2": "transactions_list_page2.json", "3": "transactions_list_page3.json",
}

// txThreePageClient is a client whose transactions listing answers the
// pages of txThreePages, with the recorder of its requests.
func txThreePageClient(t *testing.T) (*Client, *recorder) {
	t.Helper()
	return stubEndpoint(t, http.MethodGet, "transactions", txPagedResponder(t, txThreePages))
}

func TestAll_FetchesEveryPageUntilTheShortOne(t *testing.T) {
	t.Parallel()
	c, rec := txThreePageClient(t)

	assert.Equal(t, []ID{9007199254740993101, 9007199254740993102, 9007199254740993103, 9007199254740993104, 9007199254740993105}, allIDs(t, c, &ListParams{OrderID: "ord-2026-0042", Limit: 2}))
	assert.Equal(t, []string{"1", "2", "3"}, txPageNumbers(rec))
	for _, r := range rec.Requests() {
		requireSigned(t, r)
		assert.Equal(t, "2", r.Params.Get("limit"))
	}
}

func TestAll_PageSizeFromFirstPageWhenNoLimit(t *testing.T) {
	t.Parallel()
	c, rec := txThreePageClient(t)

	assert.Len(t, allIDs(t, c, &ListParams{OrderID: "ord-2026-0042"}), 5)
	assert.Equal(t, []string{"1", "2", "3"}, txPageNumbers(rec))
}

func TestAll_StopsFetchingWhenTheLoopBreaks(t *testing.T) {
	t.Parallel()
	c, rec := txThreePageClient(t)

	var ids []ID
	for tx, err := range c.Transactions.All(context.Background(), &ListParams{OrderID: "ord-2026-0042", Limit: 2}) {
		require.NoError(t, err)
		ids = append(ids, tx.ID)
		if len(ids) == 3 {
			break
		}
	}
	assert.Len(t, ids, 3)
	assert.Equal(t, []string{"1", "2"}, txPageNumbers(rec), "page 3 must not be fetched after the break")
}

func TestAll_StopsAtTotalCountWithoutAnExtraRequest(t *testing.T) {
	t.Parallel()
	c, mock := newMockClient(t)
	page := func(first, n, total int) string {
		var txs []string
		for i := 0; i < n; i++ {
			txs = append(txs, `{"id":"`+ID(9007199254740993200+ID(first+i)).String()+`","status":"completed"}`)
		}
		return `{"totalCount":` + strconv.Itoa(total) + `,"transactions":[` + strings.Join(txs, ",") + `]}`
	}
	rec := record(t, mock, http.MethodGet, "transactions", func(req *http.Request) (*http.Response, error) {
		switch req.URL.Query().Get("page") {
		case "1":
			return httpmock.NewStringResponse(200, page(0, 2, 4)), nil
		case "2":
			return httpmock.NewStringResponse(200, page(2, 2, 4)), nil
		}
		t.Errorf("page %s fetched after totalCount was reached", req.URL.Query().Get("page"))
		return httpmock.NewStringResponse(200, page(0, 0, 4)), nil
	})
	assert.Len(t, allIDs(t, c, &ListParams{OrderID: "o", Limit: 2}), 4)
	assert.Equal(t, []string{"1", "2"}, txPageNumbers(rec))
}

func TestAll_ErrorMidwayIsYieldedOnceThenStops(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodGet, "transactions", txPagedResponder(t, map[string]string{
		"1": "transactions_list_page1.json",
		"2": `{"error":{"code":42201,"message":"Gateway is not properly configured"}}`,
	}))

	var ids []ID
	var errs []error
	for tx, err := range c.Transactions.All(context.Background(), &ListParams{OrderID: "ord-2026-0042", Limit: 2}) {
		if err != nil {
			errs = append(errs, err)
			continue // a well-behaved iterator stops by itself
		}
		ids = append(ids, tx.ID)
	}
	assert.Len(t, ids, 2)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrGatewayMisconfigured)
	assert.Equal(t, []string{"1", "2"}, txPageNumbers(rec))
}

func TestAll_SamePageTwiceIsAnError(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transactions", 200, "transactions_list_page1.json")

	var errs []error
	n := 0
	for _, err := range c.Transactions.All(context.Background(), &ListParams{OrderID: "ord-2026-0042", Limit: 2}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	assert.Equal(t, 2, n)
	require.Len(t, errs, 1, "a gateway ignoring page must not loop forever")
	assert.Contains(t, errs[0].Error(), "equal to the page before it")
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		form        Form
		path        string
		status      int
		fixture     string
		found       bool
		completed   bool
		transaction int
	}{
		{"extended found", FormExtended, "transactions", 200, "transactions_list_single.json", true, true, 1},
		{"extended empty listing", FormExtended, "transactions", 200, "transactions_list_empty.json", false, false, 0},
		{"extended not found code", FormExtended, "transactions", 404, "error_transaction_not_found.json", false, false, 0},
		{"basic found", FormBasic, "transaction/status", 200, "transaction_status.json", true, true, 0},
		{"basic not found", FormBasic, "transaction/status", 404, "error_transaction_not_found.json", false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := stubFixture(t, http.MethodGet, tt.path, tt.status, tt.fixture, WithForm(tt.form))

			got, err := c.Transactions.Reconcile(context.Background(), "ord-2026-0042")
			require.NoError(t, err)
			assert.Equal(t, "ord-2026-0042", got.OrderID)
			assert.Equal(t, tt.found, got.Found)
			assert.Equal(t, tt.completed, got.Completed())
			assert.Len(t, got.Transactions, tt.transaction)
			assert.Equal(t, tt.form == FormBasic && tt.found, got.Status != nil)

			r := rec.Only(t)
			requireSigned(t, r)
			if tt.form == FormBasic {
				requireFields(t, r, map[string]string{"order_id": "ord-2026-0042"})
			} else {
				requireFields(t, r, map[string]string{"orderId": "ord-2026-0042", "page": "1"})
			}
		})
	}
}

func TestReconcile_ListsEveryPageOfTheOrder(t *testing.T) {
	t.Parallel()
	c, rec := txThreePageClient(t)

	got, err := c.Transactions.Reconcile(context.Background(), "ord-2026-0042")
	require.NoError(t, err)
	assert.True(t, got.Found)
	assert.Len(t, got.Transactions, 5)
	assert.True(t, got.Completed(), "a completed payment decides over the later one processing")
	assert.Equal(t, ID(9007199254740993104), got.Transaction.ID, "the latest completed payment")
	assert.Equal(t, []string{"1", "2", "3"}, txPageNumbers(rec))
}

func TestReconcile_OtherErrorsAreReturned(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "transactions", 403, "error_signature_invalid.json")
	_, err := c.Transactions.Reconcile(context.Background(), "ord-2026-0042")
	assert.ErrorIs(t, err, ErrSignatureInvalid)
}

func TestReconcile_SettlesAnOutcomeUnknownReversal(t *testing.T) {
	t.Parallel()
	c, mock := newMockClient(t)
	record(t, mock, http.MethodPost, "transaction/reverse", httpmock.NewStringResponder(502, "<html><body>502 Bad Gateway</body></html>"))
	record(t, mock, http.MethodGet, "transactions", fixtureResponder(t, 200, "transactions_list_single.json"))

	_, err := c.Transactions.Reverse(context.Background(), &ReverseParams{OrderID: "ord-2026-0042", Amount: decimal.NewFromInt(10)})
	var unknown *OutcomeUnknownError
	require.ErrorAs(t, err, &unknown)
	require.Equal(t, "ord-2026-0042", unknown.OrderID)

	got, err := c.Transactions.Reconcile(context.Background(), unknown.OrderID)
	require.NoError(t, err)
	assert.True(t, got.Found)
}

func TestReconcile_ValidatesOrderID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", strings.Repeat("o", 65)} {
		requireRejectedLocally(t, "order_id", func(c *Client) error { return errOf(c.Transactions.Reconcile(context.Background(), id)) })
	}
}

func TestAll_StartsAtTheGivenPageAndCountsTheOnesBefore(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodGet, "transactions", txPagedResponder(t, map[string]string{
		"2": "transactions_list_page2.json", "3": "transactions_list_page3.json",
	}))

	assert.Equal(t, []ID{9007199254740993103, 9007199254740993104, 9007199254740993105}, allIDs(t, c, &ListParams{OrderID: "ord-2026-0042", Page: 2, Limit: 2}))
	assert.Equal(t, []string{"2", "3"}, txPageNumbers(rec))
}

func TestAll_StopsAtTotalCountWhenStartingLater(t *testing.T) {
	t.Parallel()
	// Page 2 of a listing of 4 in pages of 2 is full, and the last one.
	c, rec := stubEndpoint(t, http.MethodGet, "transactions", func(req *http.Request) (*http.Response, error) {
		if p := req.URL.Query().Get("page"); p != "2" {
			t.Errorf("page %s should not have been fetched", p)
		}
		return httpmock.NewStringResponse(200, `{"totalCount":4,"transactions":[`+
			`{"id":"9007199254740993203","status":"completed"},{"id":"9007199254740993204","status":"completed"}]}`), nil
	})
	assert.Len(t, allIDs(t, c, &ListParams{OrderID: "o", Page: 2, Limit: 2}), 2)
	assert.Equal(t, []string{"2"}, txPageNumbers(rec))
}

func TestReverse_AnswerWithoutSuccessIsAnUnknownOutcomeCarryingTheID(t *testing.T) {
	t.Parallel()
	c, rec := stubEndpoint(t, http.MethodPost, "transaction/reverse", httpmock.NewStringResponder(200, `{}`))
	_, err := c.Transactions.Reverse(context.Background(), &ReverseParams{ID: 9007199254740993123, Amount: decimal.RequireFromString("5.00")})
	require.ErrorIs(t, err, ErrOutcomeUnknown, "an empty answer is not a refusal")
	require.NotErrorIs(t, err, ErrDeclined)
	var unknown *OutcomeUnknownError
	require.ErrorAs(t, err, &unknown)
	require.Equal(t, ID(9007199254740993123), unknown.TransactionID)
	require.Contains(t, err.Error(), "transaction 9007199254740993123")
	require.Len(t, rec.Requests(), 1)
}
