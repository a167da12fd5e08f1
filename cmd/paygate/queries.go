package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
)

func newTransactionsCmd(cfg *config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "transactions",
		Short: "Read transactions: status, get, list",
	}
	cmd.AddCommand(newStatusCmd(cfg), newGetCmd(cfg), newListCmd(cfg))
	return cmd
}

func newStatusCmd(cfg *config) *cobra.Command {
	var p paygate.TransactionStatusParams
	var id string
	cmd := &cobra.Command{
		Use:   "status (--id ID | --order ORDER_ID)",
		Short: "A transaction's status (GET transaction/status)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id != "" {
				parsed, err := parseID(id)
				if err != nil {
					return err
				}
				p.ID = parsed
			}
			client, err := cfg.client()
			if err != nil {
				return err
			}
			st, err := client.Transactions.Status(cmd.Context(), &p)
			if err != nil {
				return err
			}
			return cfg.emit(st, func(w io.Writer) {
				fmt.Fprintf(w, "transaction %s of order %s: %s\n", st.ID, printable(st.OrderID), printable(string(st.Status)))
			})
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "the transaction id")
	cmd.Flags().StringVar(&p.OrderID, "order", "", "the merchant's order id")
	return cmd
}

func newGetCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "One transaction by id (GET transactions/{id}; extended form)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			client, err := cfg.client()
			if err != nil {
				return err
			}
			tx, err := client.Transactions.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			return cfg.emit(tx, func(w io.Writer) { printTransactions(w, []paygate.Transaction{*tx}) })
		},
	}
}

func newListCmd(cfg *config) *cobra.Command {
	var p paygate.TransactionListParams
	var status, typ, createdFrom, createdTo, updatedFrom, updatedTo string
	var asCSV, sandbox bool
	cmd := &cobra.Command{
		Use:   "list (--order ORDER_ID | --sandbox) [filters] [--csv]",
		Short: "An order's transactions, or a sandbox's, every page (GET transactions; extended form)",
		Long: `List an order's transactions (GET transactions, every page): --order is
required, as the gateway lists one order's. Against a sandbox, --sandbox lists
every transaction of the project instead, newest first, through the control
plane (GET /sandbox/transactions), with --order, --status, --type and
--created-from/--created-to as filters.

Amounts print with the decimals the gateway sent (10.00, 0.2900).`,
		Args:        exactArgs(0),
		Annotations: calls("GET /sandbox/transactions"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !sandbox && p.OrderID == "" {
				return usagef("transactions list needs --order ORDER_ID (the gateway lists one order's transactions); against a sandbox, --sandbox lists them all")
			}
			if sandbox && (updatedFrom != "" || updatedTo != "" || p.Limit != 0) {
				return usagef("--sandbox takes --order, --status, --type, --created-from and --created-to as filters, not --updated-from, --updated-to or --limit")
			}
			p.Status, p.Type = paygate.Status(status), paygate.TransactionType(typ)
			var err error
			for _, t := range []struct {
				flag, value string
				into        *time.Time
			}{
				{"created-from", createdFrom, &p.Created.From}, {"created-to", createdTo, &p.Created.To},
				{"updated-from", updatedFrom, &p.Updated.From}, {"updated-to", updatedTo, &p.Updated.To},
			} {
				if t.value == "" {
					continue
				}
				if *t.into, err = time.Parse(time.RFC3339, t.value); err != nil {
					return usagef("--%s must be an RFC 3339 time, not %q", t.flag, t.value)
				}
			}
			var txs []paygate.Transaction
			if sandbox {
				if txs, err = cfg.sandboxTransactions(cmd.Context(), &p); err != nil {
					return err
				}
			} else {
				client, err := cfg.client()
				if err != nil {
					return err
				}
				for tx, err := range client.Transactions.All(cmd.Context(), &p) {
					if err != nil {
						return err
					}
					txs = append(txs, tx)
				}
			}
			if asCSV {
				return writeCSV(cfg.env.stdout, txs)
			}
			if txs == nil {
				txs = []paygate.Transaction{}
			}
			return cfg.emit(txs, func(w io.Writer) { printTransactions(w, txs) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.OrderID, "order", "", "the merchant's order id (required without --sandbox)")
	f.BoolVar(&sandbox, "sandbox", false, "every transaction of a sandbox's project, newest first (GET /sandbox/transactions)")
	f.StringVar(&status, "status", "", "only transactions in this status")
	f.StringVar(&typ, "type", "", "only transactions of this type (payment, refund, chargeback, ...)")
	f.StringVar(&createdFrom, "created-from", "", "created at or after (RFC 3339)")
	f.StringVar(&createdTo, "created-to", "", "created at or before (RFC 3339)")
	f.StringVar(&updatedFrom, "updated-from", "", "updated at or after (RFC 3339)")
	f.StringVar(&updatedTo, "updated-to", "", "updated at or before (RFC 3339)")
	f.IntVar(&p.Limit, "limit", 0, "transactions per page (the gateway's default when 0)")
	f.BoolVar(&asCSV, "csv", false, "print CSV with a header line")
	return cmd
}

// transactionColumns are the columns of the text and CSV listings.
var transactionColumns = []string{"id", "type", "status", "price", "currency", "fee", "order_id", "reference_id", "method", "created_at"}

// transactionRow is tx's columns in the text and CSV listings, each
// printable: the gateway wrote them.
func transactionRow(tx paygate.Transaction) []string {
	ref := ""
	if tx.ReferenceID != 0 {
		ref = tx.ReferenceID.String()
	}
	created := ""
	if t := tx.CreatedAt.Time; !t.IsZero() {
		created = t.Format(time.RFC3339)
	}
	row := []string{tx.ID.String(), string(tx.Type), string(tx.Status), withScale(tx.Price), tx.Currency,
		withScale(tx.Fee), tx.OrderID, ref, tx.Method, created}
	for i, v := range row {
		row[i] = printable(v)
	}
	return row
}

// withScale prints d with the decimals it was read with: decimal.Decimal
// keeps the scale of "10.00", but its String drops the zeros, and a
// reconciliation compares what the gateway sent.
func withScale(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}

func printTransactions(w io.Writer, txs []paygate.Transaction) {
	for _, tx := range txs {
		r := transactionRow(tx)
		fmt.Fprintf(w, "%s %s %s %s %s order=%s", r[0], r[1], r[2], r[3], r[4], r[6])
		if r[7] != "" {
			fmt.Fprintf(w, " reference=%s", r[7])
		}
		fmt.Fprintln(w)
	}
}

func writeCSV(w io.Writer, txs []paygate.Transaction) error {
	cw := csv.NewWriter(w)
	cw.Write(transactionColumns)
	for _, tx := range txs {
		cw.Write(transactionRow(tx))
	}
	cw.Flush()
	return cw.Error()
}

func newBalanceCmd(cfg *config) *cobra.Command {
	var p paygate.BalanceParams
	cmd := &cobra.Command{
		Use:   "balance [--currency EUR]",
		Short: "The merchant balance (GET balance; extended form)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			client, err := cfg.client()
			if err != nil {
				return err
			}
			b, err := client.Balance.Get(cmd.Context(), &p)
			if err != nil {
				return err
			}
			return cfg.emit(b, func(w io.Writer) {
				fmt.Fprintf(w, "available %s %s, rolling reserve %s\n", b.Amount.StringFixed(2), printable(b.Currency), b.RollingReserve.StringFixed(2))
			})
		},
	}
	cmd.Flags().StringVar(&p.Currency, "currency", "", "ISO 4217 currency (three uppercase letters)")
	return cmd
}

func newReconcileCmd(cfg *config) *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "reconcile ORDER_ID [--kind charge|recurring_charge|wallet_payment|payout|reversal|authenticate]",
		Short: "Settle an unknown outcome of a request for an order",
		Long: `Settle what became of a request whose outcome is unknown (a timeout, a dropped
connection) by looking the order up (Transactions.Settle; for a charge,
Transactions.Reconcile): whether anything is recorded for it, the outcome,
whether a payment went through, and the order's transactions. Exit 0 whatever
the outcome: read it from the output.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			client, err := cfg.client()
			if err != nil {
				return err
			}
			rec, err := client.Transactions.Settle(cmd.Context(), &paygate.TransactionSettleParams{
				Kind: paygate.OperationKind(kind), OrderID: args[0]})
			if err != nil {
				return err
			}
			out := reconciliation{OrderID: rec.OrderID, Kind: string(rec.Kind), Found: rec.Found, Outcome: string(rec.Outcome),
				Completed: rec.Completed(), Transaction: rec.Transaction, Transactions: rec.Transactions}
			return cfg.emit(out, func(w io.Writer) {
				fmt.Fprintf(w, "%s for order %s: found %v, outcome %s, completed %v\n",
					printable(out.Kind), printable(out.OrderID), out.Found, printable(out.Outcome), out.Completed)
				printTransactions(w, rec.Transactions)
			})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", string(paygate.KindCharge), "the kind of request whose outcome is unknown")
	return cmd
}

// reconciliation is what reconcile prints.
type reconciliation struct {
	OrderID      string                `json:"order_id"`
	Kind         string                `json:"kind"`
	Found        bool                  `json:"found"`
	Outcome      string                `json:"outcome"`
	Completed    bool                  `json:"completed"`
	Transaction  *paygate.Transaction  `json:"transaction,omitempty"`
	Transactions []paygate.Transaction `json:"transactions"`
}

func parseID(s string) (paygate.ID, error) {
	id, err := paygate.ParseID(s)
	if err != nil {
		return 0, usagef("%q is not a transaction id", s)
	}
	return id, nil
}

// sandboxTransactions reads every transaction of the sandbox's project that
// p selects (order, status, type, creation time), newest first, a page
// at a time through the control plane.
func (c *config) sandboxTransactions(ctx context.Context, p *paygate.TransactionListParams) ([]paygate.Transaction, error) {
	cp, err := c.controlPlane()
	if err != nil {
		return nil, err
	}
	q := url.Values{"per_page": {strconv.Itoa(controlPage)}}
	for name, v := range map[string]string{"order_id": p.OrderID, "status": string(p.Status), "type": string(p.Type)} {
		if v != "" {
			q.Set(name, v)
		}
	}
	for name, t := range map[string]time.Time{"from": p.Created.From, "to": p.Created.To} {
		if !t.IsZero() {
			q.Set(name, t.Format(time.RFC3339))
		}
	}
	out := []paygate.Transaction{}
	for {
		var page struct {
			Transactions []paygate.Transaction `json:"transactions"`
			NextCursor   textID                `json:"next_cursor"`
		}
		if err := cp.do(ctx, http.MethodGet, "transactions?"+q.Encode(), nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Transactions...)
		if page.NextCursor == "" || len(page.Transactions) == 0 {
			return out, nil
		}
		q.Set("cursor", string(page.NextCursor))
	}
}
