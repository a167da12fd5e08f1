package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

const triggerLong = `Against a sandbox (--base-url): apply EVENT to a transaction, so that the
project's callback URL receives the real, signed callback. Without --tx, first
make what the event needs with the SDK: a completed payment (chargeback), a
payment and its chargeback (retrieval, penalty), a processing payment
(complete, fail, cancel), an opened wallet payment (approve, decline, abandon,
waiting_approval). Prints the transaction the event made or changed.

With --to URL, no sandbox is involved: POST one correctly signed callback of
STATUS (a callback status, not an event) to URL, built as the sandbox builds
its callbacks, signed with the private key; --set name=value replaces or adds
a field. Exit 3 when the receiver does not answer 2xx.

--list names every event and every callback status.`

func newTriggerCmd(cfg *config) *cobra.Command {
	var tx, to string
	var list bool
	var set []string
	cmd := &cobra.Command{
		Use:   "trigger EVENT [--tx ID] | trigger STATUS --to URL | trigger --list",
		Short: "Fire an event at a sandbox, or a signed callback at a handler",
		Long:  triggerLong,
		Example: `  paygate trigger chargeback
  paygate trigger complete --tx 1234567890123456789
  paygate trigger completed --to http://127.0.0.1:9090/callbacks
  paygate trigger --list`,
		// Completion offers the events, or with --to the callback statuses.
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			if to != "" {
				for _, s := range callback.Statuses() {
					names = append(names, string(s))
				}
			} else {
				for _, e := range paygatetest.Events {
					names = append(names, string(e))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case list:
				return cfg.printTriggers()
			case len(args) != 1:
				return usagef("trigger takes one EVENT (or STATUS with --to); see paygate trigger --list")
			case to != "":
				return cfg.sendCallback(cmd.Context(), callback.Status(args[0]), to, set)
			}
			return cfg.trigger(cmd.Context(), paygatetest.Event(args[0]), tx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&tx, "tx", "", "apply the event to this existing transaction")
	f.StringVar(&to, "to", "", "send one signed callback of STATUS to this URL instead (no sandbox)")
	f.StringArrayVar(&set, "set", nil, "with --to: replace or add a callback field (name=value, repeatable)")
	f.BoolVar(&list, "list", false, "list every event and callback status")
	return cmd
}

// triggers is what trigger --list prints.
type triggers struct {
	Events   []paygatetest.Event `json:"events"`
	Statuses []callback.Status   `json:"callback_statuses"`
}

func (c *config) printTriggers() error {
	t := triggers{Events: paygatetest.Events, Statuses: callback.Statuses()}
	return c.emit(t, func(w io.Writer) {
		fmt.Fprintln(w, "events (paygate trigger EVENT, against a sandbox):")
		for _, e := range t.Events {
			fmt.Fprintln(w, "  "+string(e))
		}
		fmt.Fprintln(w, "callback statuses (paygate trigger STATUS --to URL):")
		for _, s := range t.Statuses {
			fmt.Fprintln(w, "  "+string(s))
		}
	})
}

// sendCallback POSTs one signed callback of status to target.
func (c *config) sendCallback(ctx context.Context, status callback.Status, target string, set []string) error {
	if !status.Known() {
		return usagef("%q is not a callback status; see paygate trigger --list", status)
	}
	if _, err := c.checkedURL("--to", target, "a callback signed with the private key"); err != nil {
		return err
	}
	fields, err := parseParams(set)
	if err != nil {
		return err
	}
	secret, err := c.privateKey()
	if err != nil {
		return err
	}
	form, err := c.parsedForm()
	if err != nil {
		return err
	}
	body := paygatetest.NewCallbackSigner(secret, form).Body(status, fields)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	sent, _ := url.ParseQuery(body)
	out := callbackSent{URL: target, Status: string(status), Fields: fieldsJSON(sent), HTTPStatus: res.StatusCode, Answer: string(answer)}
	if err := c.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "callback %s id=%s to %s: HTTP %d %s\n",
			status, printable(sent.Get("id")), printable(target), res.StatusCode, printable(strings.TrimSpace(string(answer))))
	}); err != nil {
		return err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return &checkFailed{msg: fmt.Sprintf("the receiver answered HTTP %d", res.StatusCode)}
	}
	return nil
}

// callbackSent is what trigger --to prints.
type callbackSent struct {
	URL        string         `json:"url"`
	Status     string         `json:"status"`
	Fields     map[string]any `json:"fields"`
	HTTPStatus int            `json:"http_status"`
	Answer     string         `json:"answer"`
}

// trigger applies event to transaction tx of the sandbox, or to one made
// for it when tx is empty, and prints the answer.
func (c *config) trigger(ctx context.Context, event paygatetest.Event, tx string) error {
	if !slices.Contains(paygatetest.Events, event) {
		return usagef("%q is not an event; see paygate trigger --list (a callback status goes with --to URL)", event)
	}
	cp, err := c.controlPlane()
	if err != nil {
		return err
	}
	var answer map[string]any
	apply := func(id string) error {
		return cp.do(ctx, http.MethodPost, "transactions/"+id+"/"+string(event), nil, &answer)
	}
	id := tx
	if id != "" {
		if _, err := parseID(id); err != nil {
			return err
		}
		err = apply(id)
	} else {
		id, err = c.prepareAndApply(ctx, cp, event, apply)
	}
	if err != nil {
		return err
	}
	return c.emit(answer, func(w io.Writer) {
		fmt.Fprintf(w, "%s applied to %s: transaction %s %s %s\n", event, id,
			printable(fmt.Sprint(answer["id"])), printable(fmt.Sprint(answer["type"])), printable(fmt.Sprint(answer["status"])))
	})
}

// prepareAndApply makes a transaction for event and applies it, and
// returns its id. A processing payment completes by itself after the
// sandbox's processing delay: if that came first, the event no longer
// applies, and a new payment is made, three times at most.
func (c *config) prepareAndApply(ctx context.Context, cp *controlPlane, event paygatetest.Event, apply func(id string) error) (string, error) {
	for tries := 1; ; tries++ {
		made, err := c.prepare(ctx, cp, event)
		if err != nil {
			return "", fmt.Errorf("making a transaction for %s: %w", event, err)
		}
		err = apply(made.String())
		var cpErr *controlPlaneError
		if err == nil || tries == 3 || !errors.As(err, &cpErr) || cpErr.Code != codeEventNotApplies {
			return made.String(), err
		}
	}
}

// prepare makes, with the SDK, a transaction event applies to.
func (c *config) prepare(ctx context.Context, cp *controlPlane, event paygatetest.Event) (paygate.ID, error) {
	client, err := c.client()
	if err != nil {
		return 0, err
	}
	order := "paygate-trigger-" + string(event) + "-" + time.Now().UTC().Format("20060102T150405.000000000")
	switch event {
	case paygatetest.EventChargeback:
		return charge(ctx, client, paygatetest.CardApproved, order)
	case paygatetest.EventRetrieval, paygatetest.EventPenalty:
		pay, err := charge(ctx, client, paygatetest.CardApproved, order)
		if err != nil {
			return 0, err
		}
		var chargeback struct {
			ID paygate.ID `json:"id"`
		}
		err = cp.do(ctx, http.MethodPost, "transactions/"+pay.String()+"/"+string(paygatetest.EventChargeback), nil, &chargeback)
		return chargeback.ID, err
	case paygatetest.EventComplete, paygatetest.EventFail, paygatetest.EventCancel:
		return charge(ctx, client, paygatetest.CardProcessing, order)
	}
	// approve, decline, abandon, waiting_approval: a wallet payment whose
	// payer has not decided yet.
	alt, err := client.Transactions.Create(ctx, &paygate.AlternativeCreateParams{
		UserIdentifier: "paygate-trigger", PaymentMethod: paygate.MethodPayPal,
		Price: decimal.RequireFromString("10.00"), Currency: "EUR", Description: "paygate trigger " + string(event),
		OrderID: order, SuccessURL: "https://merchant.example/paid", FailURL: "https://merchant.example/not-paid",
	})
	if err != nil {
		return 0, err
	}
	return paygate.ParseID(alt.RawID)
}

// charge pays 10.00 EUR with card for order, as a new user of the
// project would.
func charge(ctx context.Context, client *paygate.Client, card, order string) (paygate.ID, error) {
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{
		Identifier: "paygate-trigger", Email: "trigger@example.com", IP: "203.0.113.7"})
	if err != nil {
		return 0, err
	}
	tok, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(card), Expiry: paygate.NewExpiry(12, time.Now().Year()+3), SecurityCode: paygate.NewSecurityCode("123")})
	if err != nil {
		return 0, err
	}
	pay, err := client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID),
		Price: decimal.RequireFromString("10.00"), Currency: "EUR", Description: "paygate trigger", OrderID: order})
	if err != nil {
		return 0, err
	}
	return pay.ID, nil
}
