package paygatetest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

func TestConcurrency_ManyGoroutinesChargeReverseAndList(t *testing.T) {
	rcv := newReceiver(t, 0)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	const workers = 60
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := chargeReverseList(s, i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every charge completed and was half reversed: 60 x (10 - 0.29 - 5).
	assert.Equal(t, "282.60", s.ok("balance", nil)["amount"])
	seen := map[string]bool{}
	for _, d := range s.srv.Deliveries() {
		require.False(t, seen[d.Values.Get("id")], "ids are unique")
		seen[d.Values.Get("id")] = true
	}
	assert.Len(t, seen, 2*workers, "one callback per payment and per refund")
}

// chargeReverseList runs one merchant flow over raw HTTP without touching
// the test's t (which must not fail from another goroutine).
func chargeReverseList(s *sandbox, i int) error {
	ctx := context.Background()
	post := func(method string, v url.Values) (map[string]any, error) {
		return s.send(ctx, http.DefaultClient, method, s.signed(v))
	}
	order := fmt.Sprintf("order-%d", i)
	user, err := post("user/resolve", url.Values{"identifier": {order}, "ip": {"192.0.2.1"}})
	if err != nil {
		return err
	}
	tok, err := s.send(ctx, http.DefaultClient, "card/getToken", url.Values{"project": {s.srv.ProjectKey},
		"number": {paygatetest.CardApproved}, "expiration_month": {"12"}, "expiration_year": {"2030"}, "security_code": {"123"}})
	if err != nil {
		return err
	}
	pay, err := post("card/process", url.Values{"user": {idOf(user)}, "card_token": {tok["id"].(string)}, "price": {"10"},
		"currency": {"EUR"}, "description": {"d"}, "order_id": {order}})
	if err != nil {
		return err
	}
	if _, err := post("transaction/reverse", url.Values{"id": {idOf(pay)}, "amount": {"5"}}); err != nil {
		return err
	}
	list, err := post("transactions", url.Values{"orderId": {order}})
	if err != nil {
		return err
	}
	if n := len(list["transactions"].([]any)); n != 2 {
		return fmt.Errorf("order %s lists %d transactions, want 2", order, n)
	}
	_, err = post("balance", nil)
	return err
}
