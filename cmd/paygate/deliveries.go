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

	"github.com/paygate/paygate-go/internal/jsonscalar"
)

func newDeliveriesCmd(cfg *config) *cobra.Command {
	var follow bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "deliveries [--follow]",
		Short: "The sandbox's callbacks and each delivery attempt",
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
			return cfg.followDeliveries(cmd.Context(), cp, every)
		},
	}
	cmd.Flags().BoolVar(&follow, "follow", false, "keep polling and print each new attempt")
	cmd.Flags().DurationVar(&every, "interval", time.Second, "with --follow: how often to poll")
	return cmd
}

func newRedeliverCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "redeliver ID",
		Short: "Send one of the sandbox's callbacks again (POST /sandbox/deliveries/{id}/redeliver)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := strconv.Atoi(args[0]); err != nil {
				return usagef("%q is not a delivery id", args[0])
			}
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var d delivery
			if err := cp.do(cmd.Context(), http.MethodPost, "deliveries/"+args[0]+"/redeliver", nil, &d); err != nil {
				return err
			}
			return cfg.emit(d, func(w io.Writer) {
				fmt.Fprintf(w, "delivery %s (%s id=%s) queued again to %s\n", d.ID, d.Fields["status"], d.Fields["id"], d.URL)
			})
		},
	}
}

// delivery is a callback as GET /sandbox/deliveries describes it. The
// members it does not name are kept as received, so that --json prints
// whatever the sandbox tells (a next attempt's time, for one).
type delivery struct {
	ID        deliveryID        `json:"id"`
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
	out := maps.Clone(d.raw)
	out["attempts"] = attempts
	return json.Marshal(out)
}

// deliveryID is a delivery's id. The sandbox sends it as a JSON string, as
// every id of its control plane; a number decodes too.
type deliveryID int64

// UnmarshalJSON accepts a string of digits or a JSON number.
func (id *deliveryID) UnmarshalJSON(b []byte) error {
	n, err := jsonscalar.Int64(b)
	*id = deliveryID(n)
	return err
}

// MarshalJSON writes the id as the sandbox does, a JSON string.
func (id deliveryID) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, id.String()), nil }

func (id deliveryID) String() string { return strconv.FormatInt(int64(id), 10) }

type attempt struct {
	Time   string `json:"time"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	Manual bool   `json:"manual,omitempty"`
}

// deliveriesPage is how many deliveries deliveries asks for at once, the
// most the sandbox answers in one page.
const deliveriesPage = 1000

// deliveries reads every delivery, a page at a time: the sandbox answers
// at most per_page of them, oldest first, and the next page starts after
// the last id (cursor).
func (p *controlPlane) deliveries(ctx context.Context) ([]delivery, error) {
	out := []delivery{}
	for {
		q := url.Values{"per_page": {strconv.Itoa(deliveriesPage)}}
		if n := len(out); n > 0 {
			q.Set("cursor", out[n-1].ID.String())
		}
		page, err := p.deliveriesAt(ctx, "deliveries?"+q.Encode())
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < deliveriesPage {
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
func (d delivery) printAttempts(w io.Writer, from int) {
	if d.URL == "" {
		d.URL = "(no callback URL: recorded only)"
	}
	for i := from; i < len(d.Attempts); i++ {
		a := d.Attempts[i]
		result := a.Error
		if result == "" {
			result = "HTTP " + strconv.Itoa(a.Status)
		}
		manual := ""
		if a.Manual {
			manual = " (redelivery)"
		}
		fmt.Fprintf(w, "delivery %s %s id=%s attempt %d at %s to %s: %s%s\n",
			d.ID, d.Fields["status"], d.Fields["id"], i+1, a.Time, d.URL, result, manual)
	}
	if len(d.Attempts) == 0 && from == 0 {
		fmt.Fprintf(w, "delivery %s %s id=%s to %s: no attempt yet\n", d.ID, d.Fields["status"], d.Fields["id"], d.URL)
	}
}

// followDeliveries polls every interval until ctx ends, printing each
// attempt not printed yet.
func (c *config) followDeliveries(ctx context.Context, cp *controlPlane, interval time.Duration) error {
	if interval <= 0 {
		return usagef("--interval must be positive")
	}
	seen := map[deliveryID]int{} // delivery id -> attempts printed
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
					fmt.Fprintf(c.env.stdout, "%s\n", line)
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
