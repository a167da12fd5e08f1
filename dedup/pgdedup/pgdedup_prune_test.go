package pgdedup_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/pgdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// A replica's role may lack DELETE (a merchant prunes from a scheduled
// job with another role). The hourly prune that Complete runs then fails,
// but the callback is recorded: Complete must not say otherwise, or the
// handler logs it as processed but not recorded. The failure is logged,
// and the prune is tried again at the next Complete.
func TestComplete_AFailedPruneLeavesTheCallbackRecordedAndIsRetried(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	admin := connect(t, dsn)
	for _, q := range []string{
		`CREATE ROLE replica LOGIN`,
		`GRANT CREATE ON SCHEMA public TO replica`,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	replicaDSN := strings.Replace(dsn, "postgres://postgres@", "postgres://replica@", 1)
	s := newStore(t, replicaDSN, pgdedup.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	// The replica owns the table New created, yet may no longer delete.
	if _, err := admin.Exec(ctx, `REVOKE DELETE ON `+pgdedup.DefaultTable+` FROM replica`); err != nil {
		t.Fatal(err)
	}

	first := dedupsuite.Key(71)
	dedupsuite.RequireClaim(t, s, first, callback.Acquired)
	if err := s.Complete(ctx, first); err != nil {
		t.Fatalf("Complete with a failing prune = %v; want nil, the callback is recorded", err)
	}
	dedupsuite.RequireClaim(t, s, first, callback.Processed)
	if got := logs.String(); !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "prune") || !strings.Contains(got, "permission denied") {
		t.Fatalf("the prune's failure was not logged at error level with its cause; log:\n%s", got)
	}

	// Once the replica may delete again, the next Complete prunes, without
	// waiting for the hour.
	if _, err := admin.Exec(ctx, `GRANT DELETE ON `+pgdedup.DefaultTable+` TO replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `UPDATE `+pgdedup.DefaultTable+` SET done_at = now() - interval '31 days' WHERE key = $1`, first.String()); err != nil {
		t.Fatal(err)
	}
	dedupsuite.Record(t, s, dedupsuite.Key(72))
	var left int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM `+pgdedup.DefaultTable+` WHERE key = $1`, first.String()).Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows of the callback past the retention after the next Complete = %d, %v; want it pruned", left, err)
	}
}
