package paygateotel_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// Run with -race: one observer shared by 32 charges at once, half of them
// declined.
func TestConcurrentCharges(t *testing.T) {
	const n = 32
	rec := newRecorded(t)
	srv := newSandbox(t, nil)
	client := srv.Client(paygate.WithObserver(rec.obs))
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			card := paygatetest.CardApproved
			if i%2 == 1 {
				card = paygatetest.CardDeclined
			}
			_, errs[i] = client.Cards.Charge(testCtx(t), cardCharge(card, fmt.Sprintf("ord-c%d", i)))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}

	spans := rec.ended("card/process")
	require.Len(t, spans, n)
	orders := map[string]bool{}
	for _, s := range spans {
		orders[attrs(s)["paygate.order_id"].AsString()] = true
	}
	assert.Len(t, orders, n, "each span carries its own call's order")
	assert.Equal(t, int64(n/2), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallSucceeded)))
	assert.Equal(t, int64(n/2), rec.sum(t, "paygate.client.calls", opCharge, outcome(paygate.CallDeclined)))
}
