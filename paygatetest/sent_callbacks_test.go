package paygatetest

import (
	"strings"
	"testing"

	"github.com/paygate/paygate-go/callback"
)

// Every callback status of the spec has its row in sentCallbacks, the one
// table of the callbacks the sandbox sends, and no two rows name the same
// change, since callbackStatus takes the first row that matches.
func TestSentCallbacks_EveryStatusHasARow(t *testing.T) {
	t.Parallel()
	for _, s := range callback.Statuses() {
		if _, ok := sentCallbacks[s]; !ok {
			t.Errorf("callback status %q has no row in sentCallbacks (state.go)", s)
		}
	}
	seen := map[string]callback.Status{}
	for s, w := range sentCallbacks {
		if !s.Known() {
			t.Errorf("row %q is not a callback status of the spec", s)
		}
		for _, change := range []string{"payment " + string(w.payment), "payout " + string(w.payout), "completed " + string(w.completed)} {
			if strings.HasSuffix(change, " ") { // the row names no such change
				continue
			}
			if other, ok := seen[change]; ok {
				t.Errorf("%s sends both %s and %s", change, other, s)
			}
			seen[change] = s
		}
	}
}
