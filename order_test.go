package paygate

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderCodes are the short names OrderState's doc table uses.
var orderCodes = map[string]OrderStatus{
	"pend": OrderPending, "auth": OrderAuthenticating, "proc": OrderProcessing, "fail": OrderFailed,
	"paid": OrderPaid, "part": OrderPartiallyRefunded, "refd": OrderRefunded, "chbk": OrderChargedBack,
	"retr": OrderRetrieved,
}

// tableAmount is what every order of the table test charges; an order that
// is partially refunded got tableRefunded back.
var tableAmount, tableRefunded = decimal.RequireFromString("10.00"), decimal.RequireFromString("4.00")

// tableState is the state of an order in status for the table test: one
// partially refunded has part of tableAmount back, one refunded all of it.
func tableState(status OrderStatus) OrderState {
	s := NewOrderState(tableAmount)
	s.Status = status
	switch status {
	case OrderPartiallyRefunded:
		s.Refunded = tableRefunded
	case OrderRefunded:
		s.Refunded = tableAmount
	}
	return s
}

// tableObservations are every way of observing what a column of the doc
// table names, for an order in state s: the rule must give the cell for
// each of them.
func tableObservations(column string, s OrderState) map[string]OrderObservation {
	refundCallback := func(amount decimal.Decimal) *callback.Callback {
		return &callback.Callback{ID: 2, ReferenceID: 1, Status: callback.RefundCompleted, Price: amount}
	}
	unknown := &OutcomeUnknownError{Method: "POST", Path: "card/process", OrderID: "o-1", Err: errors.New("timeout")}
	settled := func(outcome Outcome) OrderObservation {
		return ObserveSettlement(&Reconciliation{Kind: KindCharge, Outcome: outcome, Found: true})
	}
	settledPayment := func(status Status) OrderObservation {
		return ObserveSettlement(&Reconciliation{Kind: KindCharge, Outcome: OutcomeSucceeded, Found: true,
			Transaction: &Transaction{ID: 1, Type: TypePayment, Status: status}})
	}
	out := map[string]map[string]OrderObservation{
		"3ds": {
			"charge needing 3-D Secure":      ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusAuthenticating, ACS: &ACS{URL: "https://acs.example/"}}, nil),
			"basic-form charge with acs":     ObserveCharge(&Payment{Success: true, ID: 1, ACS: &ACS{URL: "https://acs.example/"}}, nil),
			"status authenticating":          ObserveStatus(StatusAuthenticating),
			"settled waiting for 3-D Secure": settled(OutcomeNeedsAuthentication),
		},
		"proc": {
			"charge processing":         ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusProcessing}, nil),
			"basic-form charge":         ObserveCharge(&Payment{Success: true, ID: 1}, nil),
			"callback processing":       ObserveCallback(&callback.Callback{ID: 1, Status: callback.Processing}),
			"callback waiting_approval": ObserveCallback(&callback.Callback{ID: 1, Status: callback.WaitingApproval}),
			"status opened":             ObserveStatus(StatusOpened),
			"status waiting_approval":   ObserveStatus(StatusWaitingApproval),
			"status authorized":         ObserveStatus(StatusAuthorized),
			"status processing":         ObserveStatus(StatusProcessing),
		},
		"unkn": {
			"charge ErrOutcomeUnknown":  ObserveCharge(nil, unknown),
			"wrapped ErrOutcomeUnknown": ObserveCharge(nil, errors.Join(errors.New("shop"), unknown)),
		},
		"paid": {
			"charge completed":   ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusCompleted}, nil),
			"callback completed": ObserveCallback(&callback.Callback{ID: 1, Status: callback.Completed}),
			"status completed":   ObserveStatus(StatusCompleted),
			"settled succeeded":  settled(OutcomeSucceeded),
			"settled payment":    settledPayment(StatusCompleted),
		},
		"fail": {
			"charge failed":      ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusFailed}, nil),
			"basic-form decline": ObserveCharge(&Payment{ID: 1}, nil),
			"gateway refusal":    ObserveCharge(nil, ErrCardBlocked),
			"declined":           ObserveCharge(nil, &DeclinedError{Method: "POST", Path: "card/process"}),
			"callback failed":    ObserveCallback(&callback.Callback{ID: 1, Status: callback.Failed}),
			"status failed":      ObserveStatus(StatusFailed),
			"status cancelled":   ObserveStatus(StatusCancelled),
			"status abandoned":   ObserveStatus(StatusAbandoned),
			"payment cancelled":  ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusCancelled}, nil),
			"payment abandoned":  ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusAbandoned}, nil),
			"token already used": ObserveCharge(nil, ErrCardTokenUsed),
		},
		"part": {
			"refund_completed of less than remains": ObserveCallback(refundCallback(decimal.RequireFromString("1.00"))),
		},
		"rest": {
			"callback reversed":                     ObserveCallback(&callback.Callback{ID: 1, Status: callback.Reversed}),
			"basic-form refund_completed (payment)": ObserveCallback(&callback.Callback{ID: 1, Status: callback.RefundCompleted, Price: tableAmount}),
			"status refunded":                       ObserveStatus(StatusRefunded),
			"status reversed":                       ObserveStatus(StatusReversed),
			"settled payment refunded since":        settledPayment(StatusRefunded),
			"settled reversal of all that was left": ObserveSettlement(&Reconciliation{Kind: KindReversal, Outcome: OutcomeSucceeded,
				Found: true, Payment: &Transaction{ID: 1, Type: TypePayment, Status: StatusRefunded}}),
		},
		"chbk": {
			"callback chargeback_completed": ObserveCallback(&callback.Callback{ID: 3, ReferenceID: 1, Status: callback.ChargebackCompleted, Price: tableAmount}),
			"status charged_back":           ObserveStatus(StatusChargedBack),
			"settled payment charged back":  settledPayment(StatusChargedBack),
		},
		"retr": {
			"callback retrieval_completed": ObserveCallback(&callback.Callback{ID: 4, ReferenceID: 3, Status: callback.RetrievalCompleted, Price: tableAmount}),
			"status retrieved":             ObserveStatus(StatusRetrieved),
		},
		"retry": {
			"new attempt": ObserveRetry(),
		},
	}[column]
	if column == "rest" && s.Refunded.LessThan(s.Amount) {
		out["refund_completed of what remains"] = ObserveCallback(refundCallback(s.Amount.Sub(s.Refunded)))
	}
	return out
}

// TestOrderState_EveryTransitionIsTheDocumentedOne reads the table of
// OrderState's doc comment and applies every observation of every column
// to an order in every row's status: the doc is the rule's specification.
func TestOrderState_EveryTransitionIsTheDocumentedOne(t *testing.T) {
	t.Parallel()
	header, rows := orderDocTable(t)
	require.Equal(t, []string{"3ds", "proc", "unkn", "paid", "fail", "part", "rest", "chbk", "retr", "retry"}, header)
	require.Len(t, rows, len(orderStatuses), "a row per status")
	for i, row := range rows {
		from, ok := orderCodes[row[0]]
		require.True(t, ok, "row %q", row[0])
		require.Equal(t, orderStatuses[i], from, "rows in the order of the rule")
		require.Len(t, row, len(header)+1, "row %s", row[0])
		for j, cell := range row[1:] {
			want := from
			if cell != "-" {
				want, ok = orderCodes[cell]
				require.True(t, ok, "cell %q", cell)
			}
			obs := tableObservations(header[j], tableState(from))
			require.NotEmpty(t, obs, "column %s", header[j])
			for name, o := range obs {
				got := tableState(from).Apply(o)
				assert.Equal(t, want, got.Status, "%s + %s", from, name)
			}
		}
	}
}

func TestOrderState_LateUnknownLeavesAPaidOrderPaid(t *testing.T) {
	t.Parallel()
	s := NewOrderState(tableAmount).Apply(ObserveCallback(&callback.Callback{ID: 1, Status: callback.Completed}))
	got := s.Apply(ObserveCharge(nil, &OutcomeUnknownError{Method: "POST", Path: "card/process", Err: errors.New("timeout")}))
	assert.Equal(t, OrderPaid, got.Status)
	assert.True(t, got.Equal(s), "nothing changed")
}

func TestOrderState_PartialRefundsAddUpToAWholeRefund(t *testing.T) {
	t.Parallel()
	s := NewOrderState(tableAmount).Apply(ObserveStatus(StatusCompleted))
	refund := func(amount string) OrderObservation {
		return ObserveCallback(&callback.Callback{ID: 2, ReferenceID: 1, Status: callback.RefundCompleted, Price: decimal.RequireFromString(amount)})
	}
	s = s.Apply(refund("4.00"))
	assert.Equal(t, OrderPartiallyRefunded, s.Status)
	assert.Equal(t, "4", s.Refunded.String())
	s = s.Apply(refund("5.99"))
	assert.Equal(t, OrderPartiallyRefunded, s.Status)
	s = s.Apply(refund("0.01"))
	assert.Equal(t, OrderRefunded, s.Status)
	assert.Equal(t, "10", s.Refunded.String())

	s = s.Apply(ObserveCallback(&callback.Callback{ID: 1, Status: callback.Completed}))
	assert.Equal(t, OrderRefunded, s.Status, "a stale completed never reopens a refunded order")
}

func TestOrderState_RefundAfterChargebackIsCountedButKeepsTheStatus(t *testing.T) {
	t.Parallel()
	s := NewOrderState(tableAmount).Apply(ObserveStatus(StatusCompleted)).Apply(ObserveStatus(StatusChargedBack))
	s = s.Apply(ObserveCallback(&callback.Callback{ID: 2, ReferenceID: 1, Status: callback.RefundCompleted, Price: decimal.RequireFromString("3")}))
	assert.Equal(t, OrderChargedBack, s.Status)
	assert.Equal(t, "3", s.Refunded.String())
	s = s.Apply(ObserveStatus(StatusRefunded))
	assert.Equal(t, tableAmount.String(), s.Refunded.String(), "a whole refund counts what remains")
}

func TestOrderState_WithoutAnAmountEveryRefundIsWhole(t *testing.T) {
	t.Parallel()
	s := OrderState{Status: OrderPaid}.Apply(ObserveCallback(&callback.Callback{ID: 2, ReferenceID: 1, Status: callback.RefundCompleted, Price: decimal.RequireFromString("1")}))
	assert.Equal(t, OrderRefunded, s.Status)
}

func TestOrderState_EmptyStatusIsPendingAndAnUnknownOneMovesOn(t *testing.T) {
	t.Parallel()
	assert.Equal(t, OrderPending, OrderState{}.Apply(OrderObservation{}).Status)
	assert.True(t, OrderState{}.Equal(OrderState{Status: OrderPending}))
	assert.Equal(t, OrderProcessing, OrderState{Status: "new"}.Apply(ObserveStatus(StatusProcessing)).Status)
}

func TestOrderState_EqualComparesStatusAndAmounts(t *testing.T) {
	t.Parallel()
	a := NewOrderState(decimal.RequireFromString("10.00"))
	assert.True(t, a.Equal(NewOrderState(decimal.RequireFromString("10"))), "as numbers")
	assert.False(t, a.Equal(NewOrderState(decimal.RequireFromString("11"))))
	b := a
	b.Refunded = decimal.RequireFromString("1")
	assert.False(t, a.Equal(b))
	b = a
	b.Status = OrderPaid
	assert.False(t, a.Equal(b))
}

func TestObserve_NewsThatSaysNothingAboutThePaymentChangesNothing(t *testing.T) {
	t.Parallel()
	paid := NewOrderState(tableAmount).Apply(ObserveStatus(StatusCompleted))
	pending := NewOrderState(tableAmount)
	for name, o := range map[string]OrderObservation{
		"validation error":        ObserveCharge(nil, &ValidationError{Field: "price", Reason: "required"}),
		"network error":           ObserveCharge(nil, &NetworkError{Method: "POST", Path: "card/process", Err: errors.New("dial")}),
		"HTTP error without code": ObserveCharge(nil, &Error{HTTPStatus: 502}),
		"ACS return mismatch":     ObserveCharge(nil, &ACSReturnMismatchError{PaymentID: 1, Err: ErrTransactionCompleted}),
		"already completed":       ObserveCharge(nil, ErrTransactionCompleted),
		"nil payment":             ObserveCharge(nil, nil),
		"verified payment":        ObserveCharge(&Payment{Success: true, ID: 1, Status: StatusVerified}, nil),
		"callback verified":       ObserveCallback(&callback.Callback{ID: 1, Status: callback.Verified}),
		"callback penalty":        ObserveCallback(&callback.Callback{ID: 5, ReferenceID: 3, Status: callback.PenaltyCompleted}),
		"callback payout":         ObserveCallback(&callback.Callback{ID: 6, Status: callback.PayoutCompleted}),
		"callback unknown":        ObserveCallback(&callback.Callback{ID: 1, Status: "settled"}),
		"nil callback":            ObserveCallback(nil),
		"status returned":         ObserveStatus(StatusReturned),
		"status unknown":          ObserveStatus("settled"),
		"zero observation":        {},
		"nothing settled yet":     ObserveSettlement(&Reconciliation{Kind: KindCharge, Outcome: OutcomeNotFound}),
		"undetermined":            ObserveSettlement(&Reconciliation{Kind: KindReversal, Outcome: OutcomeUndetermined, Found: true}),
		"partial reversal": ObserveSettlement(&Reconciliation{Kind: KindReversal, Outcome: OutcomeSucceeded, Found: true,
			Transaction: &Transaction{ID: 2, Type: TypeRefund, Status: StatusCompleted, Price: decimal.RequireFromString("1")},
			Payment:     &Transaction{ID: 1, Type: TypePayment, Status: StatusCompleted}}),
		"payout":      ObserveSettlement(&Reconciliation{Kind: KindPayout, Outcome: OutcomeSucceeded, Found: true}),
		"nil settled": ObserveSettlement(nil),
	} {
		assert.True(t, paid.Apply(o).Equal(paid), "paid + %s", name)
		assert.True(t, pending.Apply(o).Equal(pending), "pending + %s", name)
	}
}

// orderDocTable returns the header and the rows of the transition table in
// OrderState's doc comment, split into words.
func orderDocTable(t *testing.T) (header []string, rows [][]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "order.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.TYPE && g.Specs[0].(*ast.TypeSpec).Name.Name == "OrderState" {
			doc = g.Doc.Text()
		}
		return true
	})
	require.NotEmpty(t, doc, "OrderState's doc comment")
	in := false
	for _, line := range strings.Split(doc, "\n") {
		fields := strings.Fields(line)
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), `now \ seen`):
			header, in = fields[3:], true
		case in && len(fields) == 0:
			return header, rows
		case in:
			rows = append(rows, fields)
		}
	}
	t.Fatal("no end of the table")
	return nil, nil
}
