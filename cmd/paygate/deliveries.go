package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
)

func newDeliveriesCmd(cfg *config) *cobra.Command {
	var follow bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:         "deliveries [--follow]",
		Annotations: calls("GET /sandbox/deliveries"),
		Short:       "The sandbox's callbacks and each delivery attempt",
		Long: `List the callbacks the sandbox sent (GET /sandbox/deliveries), oldest first, one
line per attempt: the delivery's id, the callback's status and transaction,
where it went and what the receiver answered. --follow keeps polling and
prints each new attempt as it happens (with --json, one JSON object per line:
the delivery as the control plane describes it, with the new attempt).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			if !follow {
				all, err := cp.deliveries(cmd.Context())
				if err != nil {
					return err
				}
				return cfg.emit(all, func(w io.Writer) {
					for _, d := range all {
						d.printAttempts(w, 0)
					}
				})
			}
			return cfg.followDeliveries(cmd.Context(), cp, every, false)
		},
	}
	cmd.Flags().BoolVar(&follow, "follow", false, "keep polling and print each new attempt")
	cmd.Flags().DurationVar(&every, "interval", time.Second, "with --follow: how often to poll")
	return cmd
}

func newRedeliverCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "redeliver ID",
		Short: "Send one of the sandbox's callbacks again, and print what the receiver answered",
		Long: `Send callback ID of the sandbox again, now (POST /sandbox/deliveries/{id}/redeliver),
and print what its receiver answered: the sandbox answers once the attempt is
made, or after 5 seconds without it, and then says so (paygate deliveries
--follow shows the attempt when it comes). Exit 3 when the receiver did not
accept the callback.`,
		Args:        exactArgs(1),
		Annotations: calls("POST /sandbox/deliveries/{id}/redeliver"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return usagef("%q is not a delivery id", args[0])
			}
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			// What it had, to tell the new attempt from earlier ones.
			before, _ := cp.delivery(cmd.Context(), id)
			var d delivery
			if err := cp.do(cmd.Context(), http.MethodPost, "deliveries/"+args[0]+"/redeliver", nil, &d); err != nil {
				return err
			}
			made := newAttempt(before, d)
			if err := cfg.emit(d, func(w io.Writer) {
				head := fmt.Sprintf("delivery %s (%s id=%s) to %s", d.ID, printable(d.Fields["status"]), printable(d.Fields["id"]), printable(d.URL))
				if made == nil {
					fmt.Fprintf(w, "%s: queued again, no attempt within the sandbox's 5 seconds; paygate deliveries --follow shows its outcome\n", head)
					return
				}
				fmt.Fprintf(w, "%s: sent again, %s\n", head, made.result())
			}); err != nil {
				return err
			}
			if made != nil && !made.accepted() {
				return &checkFailed{msg: "the receiver did not accept the callback: " + made.result()}
			}
			return nil
		},
	}
}

// newAttempt is the attempt after has that before (the same delivery read
// earlier, or nil) had not, nil for none: its last attempt when there are
// more of them or the last one differs (the sandbox keeps the latest
// attempts only).
func newAttempt(before *delivery, after delivery) *attempt {
	if len(after.Attempts) == 0 {
		return nil
	}
	last := after.Attempts[len(after.Attempts)-1]
	if before != nil && len(before.Attempts) > 0 && len(after.Attempts) <= len(before.Attempts) &&
		before.Attempts[len(before.Attempts)-1] == last {
		return nil
	}
	if before == nil && !last.Manual {
		return nil
	}
	return &last
}

// delivery reads delivery id, nil when the sandbox has none.
func (p *controlPlane) delivery(ctx context.Context, id int64) (*delivery, error) {
	q := url.Values{"per_page": {"1"}}
	if id > 1 {
		q.Set("cursor", strconv.FormatInt(id-1, 10))
	}
	page, err := p.deliveriesAt(ctx, "deliveries?"+q.Encode())
	if err != nil || len(page) == 0 || int64(page[0].ID) != id {
		return nil, err
	}
	return &page[0], nil
}

// delivery is a callback as GET /sandbox/deliveries describes it. The
// members it does not name are kept as received, so that --json prints
// whatever the sandbox tells (a next attempt's time, for one).
type delivery struct {
	ID        paygate.ID        `json:"id"` // a number or a string; printed as a string`
	URL       string            `json:"url"`
	Fields    map[string]string `json:"fields"`
	Attempts  []attempt         `json:"attempts"`
	Delivered bool              `json:"delivered"`
	Done      bool              `json:"done"`
	raw       map[string]json.RawMessage
}

// deliveryFields is delivery without its methods, for encoding/json.
type deliveryFields delivery

// UnmarshalJSON implements json.Unmarshaler.
func (d *delivery) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*deliveryFields)(d)); err != nil {
		return err
	}
	return json.Unmarshal(b, &d.raw)
}

// MarshalJSON implements json.Marshaler: the delivery as received, with
// its attempts as d holds them.
func (d delivery) MarshalJSON() ([]byte, error) {
	if d.raw == nil {
		return json.Marshal(deliveryFields(d))
	}
	attempts, err := json.Marshal(d.Attempts)
	if err != nil {
		return nil, err
	}
	id, err := json.Marshal(d.ID)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(d.raw)
	out["attempts"] = attempts
	out["id"] = id
	return json.Marshal(out)
}

type attempt struct {
	Time   string `json:"time"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	Manual bool   `json:"manual,omitempty"`
}

// result is what the receiver answered, printable: "HTTP 200", or why
// there was no answer.
func (a attempt) result() string {
	if a.Error != "" {
		return printable(a.Error)
	}
	return "HTTP " + strconv.Itoa(a.Status)
}

// accepted reports whether the receiver accepted the callback: 2xx.
func (a attempt) accepted() bool { return a.Error == "" && a.Status >= 200 && a.Status <= 299 }

// controlPage is how many deliveries or transactions the command asks
// for at once, the most the sandbox answers in one page.
const controlPage = 1000

// deliveries reads every delivery, a page at a time: the sandbox answers
// at most per_page of them, oldest first, and the next page starts after
// the last id (cursor).
func (p *controlPlane) deliveries(ctx context.Context) ([]delivery, error) {
	out := []delivery{}
	for {
		q := url.Values{"per_page": {strconv.Itoa(controlPage)}}
		if n := len(out); n > 0 {
			q.Set("cursor", out[n-1].ID.String())
		}
		page, err := p.deliveriesAt(ctx, "deliveries?"+q.Encode())
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < controlPage {
			return out, nil
		}
	}
}

// deliveriesAt reads one page of deliveries. The answer is a JSON array,
// or an object holding one under "deliveries".
func (p *controlPlane) deliveriesAt(ctx context.Context, path string) ([]delivery, error) {
	var raw json.RawMessage
	if err := p.do(ctx, http.MethodGet, path, nil, &raw); err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '{' {
		var page struct {
			Deliveries json.RawMessage `json:"deliveries"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		raw = page.Deliveries
	}
	out := []delivery{}
	if len(raw) == 0 {
		return out, nil
	}
	return out, json.Unmarshal(raw, &out)
}

// printAttempts prints the attempts of d from the from-th on, one a line.
// What the sandbox tells (a receiver's error, a callback URL, the fields)
// is printable.
func (d delivery) printAttempts(w io.Writer, from int) {
	target := printable(d.URL)
	if d.URL == "" {
		target = "(no callback URL: recorded only)"
	}
	status, id := printable(d.Fields["status"]), printable(d.Fields["id"])
	for i := from; i < len(d.Attempts); i++ {
		a := d.Attempts[i]
		result := a.result()
		manual := ""
		if a.Manual {
			manual = " (redelivery)"
		}
		fmt.Fprintf(w, "delivery %s %s id=%s attempt %d at %s to %s: %s%s\n",
			d.ID, status, id, i+1, printable(a.Time), target, result, manual)
	}
	if len(d.Attempts) == 0 && from == 0 {
		fmt.Fprintf(w, "delivery %s %s id=%s to %s: no attempt yet\n", d.ID, status, id, target)
	}
}

// followDeliveries polls every interval until ctx ends, printing each
// attempt not printed yet; onlyNew skips the attempts made before.
func (c *config) followDeliveries(ctx context.Context, cp *controlPlane, interval time.Duration, onlyNew bool) error {
	if interval <= 0 {
		return usagef("--interval must be positive")
	}
	seen := map[paygate.ID]int{} // delivery id -> attempts printed
	if onlyNew {
		all, err := cp.deliveries(ctx)
		if err != nil {
			return err
		}
		for _, d := range all {
			seen[d.ID] = len(d.Attempts)
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		all, err := cp.deliveries(ctx)
		if err != nil && ctx.Err() == nil {
			return err
		}
		for _, d := range all {
			from := seen[d.ID]
			if from >= len(d.Attempts) {
				continue
			}
			seen[d.ID] = len(d.Attempts)
			if c.json {
				for _, a := range d.Attempts[from:] {
					one := d
					one.Attempts = []attempt{a}
					line, _ := json.Marshal(one)
					fmt.Fprintf(c.env.stdout, "%s\n", jsonPrintable(line))
				}
				continue
			}
			d.printAttempts(c.env.stdout, from)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
