package paygatetest

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/paygate/paygate-go"
)

// BenchmarkDeliveriesPage is one page of 10 of GET /sandbox/deliveries
// from the middle of a log of 1,000 and of 100,000 callbacks, by cursor
// and by page number. A page by cursor costs the same at both sizes when
// only the page is copied; one by number still skips the callbacks before
// it, without copying them.
func BenchmarkDeliveriesPage(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s := withRecordedCallbacks(b, n)
		p := s.project(s.ProjectKey)
		for _, in := range []url.Values{
			{"per_page": {"10"}, "cursor": {strconv.Itoa(n / 2)}},
			{"per_page": {"10"}, "page": {strconv.Itoa(n / 20)}},
		} {
			mode := "cursor"
			if in.Has("page") {
				mode = "page"
			}
			b.Run("callbacks="+strconv.Itoa(n)+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if _, err := s.controlDeliveries(p, in, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkChargeDroppingFarCallbacks is one payment made in a sandbox
// holding its retention (1,000 and 100,000) of them, each of which had its
// processing callback and, half the retention later, its completed one:
// each payment made drops the oldest, whose two callbacks lie half the log
// apart. Dropping costs the same at both sizes when it finds each callback
// by seq instead of walking the log between them.
func BenchmarkChargeDroppingFarCallbacks(b *testing.B) {
	for _, retention := range []int{1000, 100000} {
		b.Run("retention="+strconv.Itoa(retention), func(b *testing.B) {
			s := NewServer(WithRetention(retention))
			defer s.Close()
			s.mu.Lock()
			defer s.mu.Unlock()
			p := s.st.projects[s.ProjectKey]
			var made []*txn
			charge := func() {
				made = append(made, cardPayment(s, p, "", paygate.StatusProcessing))
				if half := len(made) - retention/2; half >= 0 {
					s.transition(made[half], paygate.StatusCompleted)
					made[half] = nil
				}
			}
			for range retention {
				charge()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				charge()
			}
		})
	}
}

// BenchmarkDeliveriesFullListing pages through a whole log of 1,000 and of
// 100,000 callbacks by cursor, 1000 a page, as `paygate deliveries` does:
// linear in the log when a page copies only itself, quadratic when each
// copies the whole log.
func BenchmarkDeliveriesFullListing(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s := withRecordedCallbacks(b, n)
		p := s.project(s.ProjectKey)
		b.Run("callbacks="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				for cursor, listed := 0, 0; listed < n; {
					in := url.Values{"per_page": {"1000"}}
					if cursor != 0 {
						in.Set("cursor", strconv.Itoa(cursor))
					}
					out, err := s.controlDeliveries(p, in, "")
					if err != nil {
						b.Fatal(err)
					}
					page := out.([]deliveryJSON)
					listed += len(page)
					cursor = page[len(page)-1].ID
				}
			}
		})
	}
}
