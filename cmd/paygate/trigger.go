package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
waiting_approval). Prints the transaction the event made or changed, then
waits (at most --wait, 5s) for the first attempt of each callback the event
made and prints what the receiver answered, or that the sandbox has no
callback URL (callbacks recorded only). Exit 3 when a receiver did not accept
a callback (not 2xx, unreachable, or no attempt within --wait). With --json:
the transaction as the sandbox answers it, every id a string, and
"callbacks", each as paygate deliveries --json prints it.

With --to URL, no sandbox is involved: POST one correctly signed callback of
STATUS (a callback status, not an event) to URL, built as the sandbox builds
its callbacks, signed with the private key; --set name=value replaces or adds
a field. Exit 3 when the receiver does not answer 2xx.

--list names every event and every callback status.`

func newTriggerCmd(cfg *config) *cobra.Command {
	var tx, to string
	var list bool
	var wait time.Duration
	var set []string
	cmd := &cobra.Command{
		Use:         "trigger EVENT [--tx ID] | trigger STATUS --to URL | trigger --list",
		Annotations: calls("POST /sandbox/transactions/{id}/{event}"),
		Short:       "Fire an event at a sandbox, or a signed callback at a handler",
		Long:        triggerLong,
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
			return cfg.trigger(cmd.Context(), paygatetest.Event(args[0]), tx, wait)
		},
	}
	f := cmd.Flags()
	f.StringVar(&tx, "tx", "", "apply the event to this existing transaction")
	f.StringVar(&to, "to", "", "send one signed callback of STATUS to this URL instead (no sandbox)")
	f.StringArrayVar(&set, "set", nil, "with --to: replace or add a callback field (name=value, repeatable)")
	f.BoolVar(&list, "list", false, "list every event and callback status")
	f.DurationVar(&wait, "wait", 5*time.Second, "how long to wait for the first attempt of the event's callbacks")
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
// for it when tx is empty, prints the answer, then waits up to wait for the
// first attempt of each callback the event made and prints what its
// receiver answered: checkFailed when one did not accept it.
func (c *config) trigger(ctx context.Context, event paygatetest.Event, tx string, wait time.Duration) error {
	if !slices.Contains(paygatetest.Events, event) {
		return usagef("%q is not an event; see paygate trigger --list (a callback status goes with --to URL)", event)
	}
	if wait < 0 {
		return usagef("--wait must not be negative")
	}
	cp, err := c.controlPlane()
	if err != nil {
		return err
	}
	var answer map[string]any
	var mark int64 // the last delivery before the event
	apply := func(id string) error {
		if mark, err = cp.lastDelivery(ctx); err != nil {
			return err
		}
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
	stringIDs(answer)
	made := fmt.Sprint(answer["id"])
	callbacks, err := cp.awaitCallbacks(ctx, mark, []string{made, id}, wait)
	if err != nil {
		return err
	}
	answer["callbacks"] = callbacks
	if err := c.emit(answer, func(w io.Writer) {
		fmt.Fprintf(w, "%s applied to %s: transaction %s %s %s\n", event, id,
			printable(made), printable(fmt.Sprint(answer["type"])), printable(fmt.Sprint(answer["status"])))
		for _, d := range callbacks {
			fmt.Fprintf(w, "callback %s %s id=%s: %s\n", d.ID, printable(d.Fields["status"]), printable(d.Fields["id"]), d.outcome(wait))
		}
	}); err != nil {
		return err
	}
	for _, d := range callbacks {
		if d.URL != "" && (len(d.Attempts) == 0 || !d.Attempts[0].accepted()) {
			return &checkFailed{msg: fmt.Sprintf("callback %s (%s) was not accepted: %s", d.ID, printable(d.Fields["status"]), d.outcome(wait))}
		}
	}
	return nil
}

// outcome says what became of d's first attempt, for text output.
func (d delivery) outcome(wait time.Duration) string {
	switch {
	case d.URL == "":
		return "no callback URL: callbacks are recorded only"
	case len(d.Attempts) == 0:
		return fmt.Sprintf("to %s: no attempt within %v; paygate deliveries --follow shows it", printable(d.URL), wait)
	}
	return "to " + printable(d.URL) + ": " + d.Attempts[0].result()
}

// awaitCallbacks returns the callbacks after delivery mark about the
// transactions ids, once each has its first attempt (or is recorded only),
// or as they stand after wait.
func (p *controlPlane) awaitCallbacks(ctx context.Context, mark int64, ids []string, wait time.Duration) ([]delivery, error) {
	deadline := time.Now().Add(wait)
	for {
		var out []delivery
		pending := false
		for cursor := mark; ; {
			page, err := p.deliveriesAt(ctx, "deliveries?"+url.Values{"cursor": {strconv.FormatInt(cursor, 10)}, "per_page": {strconv.Itoa(controlPage)}}.Encode())
			if err != nil {
				return nil, err
			}
			for _, d := range page {
				if slices.Contains(ids, d.Fields["id"]) {
					out = append(out, d)
					pending = pending || (d.URL != "" && len(d.Attempts) == 0)
				}
			}
			if len(page) < controlPage {
				break
			}
			cursor = int64(page[len(page)-1].ID)
		}
		if !pending || !time.Now().Before(deadline) {
			if out == nil {
				out = []delivery{}
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lastDelivery is the id of the project's latest callback, 0 for none. The
// sandbox answers the deliveries after a cursor, oldest first: whether one
// follows id n tells whether the latest is beyond n, so a search finds it
// in a few small requests however many the sandbox holds.
func (p *controlPlane) lastDelivery(ctx context.Context) (int64, error) {
	after := func(n int64) (bool, error) {
		q := url.Values{"per_page": {"1"}}
		if n > 0 {
			q.Set("cursor", strconv.FormatInt(n, 10))
		}
		page, err := p.deliveriesAt(ctx, "deliveries?"+q.Encode())
		return len(page) > 0, err
	}
	if more, err := after(0); err != nil || !more {
		return 0, err
	}
	// The latest is in (lo, hi]: some delivery follows lo, none hi.
	lo, hi := int64(0), int64(1)
	for {
		more, err := after(hi)
		if err != nil {
			return 0, err
		}
		if !more {
			break
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		more, err := after(mid)
		if err != nil {
			return 0, err
		}
		if more {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// stringIDs makes every id of a control plane's answer (id, referenceId,
// user_id: a name that is or ends in id) a JSON string, as the command
// prints every id: a 19-digit number loses digits in many JSON readers.
func stringIDs(v map[string]any) {
	for k, x := range v {
		switch x := x.(type) {
		case json.Number:
			if lower := strings.ToLower(k); lower == "id" || strings.HasSuffix(k, "Id") || strings.HasSuffix(lower, "_id") {
				v[k] = x.String()
			}
		case map[string]any:
			stringIDs(x)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					stringIDs(m)
				}
			}
		}
	}
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
