package paygatetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// withRecordedCallbacks starts a server on a frozen clock whose project
// records callbacks without sending them, and makes n completed payments,
// one callback each.
func withRecordedCallbacks(tb testing.TB, n int) *Server {
	tb.Helper()
	s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), WithRetention(n+10))
	tb.Cleanup(s.Close)
	completePayments(s, n)
	return s
}

// A page of GET /sandbox/deliveries copies the records of the page, not
// the whole log: its bytes are the same at 100 callbacks as at 10,000,
// whether it is found by page number or by cursor.
func TestControlDeliveries_PageAllocatesIndependentlyOfTheLogSize(t *testing.T) {
	for _, in := range []url.Values{
		{"per_page": {"10"}, "page": {"3"}},
		{"per_page": {"10"}, "cursor": {"50"}},
	} {
		bytesPerPage := func(n int) uint64 {
			s := withRecordedCallbacks(t, n)
			p := s.project(s.ProjectKey)
			var out any
			return allocatedBy(func() {
				var err *Error
				out, err = s.controlDeliveries(p, in, "")
				require.Nil(t, err)
				require.Len(t, out, 10)
			})
		}
		small, large := bytesPerPage(100), bytesPerPage(10000)
		t.Logf("%v: %d bytes per page at 100 callbacks, %d at 10,000", in, small, large)
		assert.Less(t, large, small*2, "%v: a page at 10,000 callbacks allocates about what it does at 100", in)
	}
}

// Rendering the dashboard reads the callbacks of the transactions it
// shows, not a copy of the whole log: its bytes at 10,000 callbacks are
// about those at 200.
func TestDashboardData_AllocatesIndependentlyOfTheLogSize(t *testing.T) {
	bytesPerRender := func(n int) uint64 {
		s := withRecordedCallbacks(t, n)
		p := s.project(s.ProjectKey)
		return allocatedBy(func() {
			page := s.dashboardData(p, "csrf")
			require.Equal(t, n, page.Total)
			require.Equal(t, n, page.Count)
			require.Len(t, page.Transactions[0].Callbacks, 1)
		})
	}
	small, large := bytesPerRender(200), bytesPerRender(10000)
	t.Logf("%d bytes per render at 200 callbacks, %d at 10,000", small, large)
	assert.Less(t, large, small*3/2, "a render at 10,000 callbacks allocates about what it does at 200")
}

// twoProjects starts a server keeping 5 transactions on a frozen clock,
// with a second project "other", and makes 8 payments of its own project
// and 4 of the other, interleaved: each of its own has a processing
// callback and a completed one, with the other's callback between them
// for every second one.
func twoProjects(t *testing.T) *Server {
	s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), WithRetention(5))
	t.Cleanup(s.Close)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projects[s.ProjectKey]
	s.st.addProject(Project{Key: "other", Secret: NewSecret("other-secret")})
	other := s.st.projects["other"]
	for i := range 8 {
		tx := cardPayment(s, p, "", paygate.StatusProcessing)
		if i%2 == 0 {
			cardPayment(s, other, "", paygate.StatusCompleted)
		}
		s.transition(tx, paygate.StatusCompleted)
	}
	return s
}

// The dashboard counts and lists every transaction and callback of its
// project, and only of it, as they are kept: after transactions were
// dropped and another project made its own.
func TestDashboardData_CountsWhatIsKept(t *testing.T) {
	s := twoProjects(t)
	p := s.project(s.ProjectKey)
	page := s.dashboardData(p, "csrf")
	var want, callbacks int
	for _, d := range s.Deliveries() {
		if d.project == p.Key {
			want++
		}
	}
	for _, row := range page.Transactions {
		callbacks += len(row.Callbacks)
	}
	assert.Equal(t, 3, page.Total, "5 kept in all, 2 of them the other project's")
	assert.Equal(t, want, page.Count)
	assert.Equal(t, want, callbacks, "every kept callback is shown with its transaction")
	require.NotEmpty(t, page.Transactions)
	newest := page.Transactions[0].Callbacks
	require.Len(t, newest, 2)
	assert.Equal(t, string(callback.Processing), newest[0].Status, "oldest first")
	assert.Equal(t, string(callback.Completed), newest[1].Status)
	assert.Less(t, newest[0].Seq, newest[1].Seq)
}

// A state restored from its file links each transaction's callbacks and
// counts them as the saved one did: the dashboard shows the same, and
// dropping a project's transactions drops all of their callbacks.
func TestRestore_KeepsEachTransactionsCallbacksTogether(t *testing.T) {
	saved := twoProjects(t)
	p := saved.project(saved.ProjectKey)
	s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), WithRetention(5))
	t.Cleanup(s.Close)
	s.AddProject(Project{Key: "other", Secret: NewSecret("other-secret")})
	require.NoError(t, s.restore(saved.snapshot()))

	want, got := saved.dashboardData(p, "csrf"), s.dashboardData(s.project(s.ProjectKey), "csrf")
	assert.Equal(t, want.Total, got.Total)
	assert.Equal(t, want.Count, got.Count)
	assert.Equal(t, want.Transactions, got.Transactions)

	s.ResetProject(s.ProjectKey)
	for _, d := range s.Deliveries() {
		assert.Equal(t, "other", d.project, "callback %d", d.Seq)
	}
	assert.Zero(t, s.dashboardData(s.project(s.ProjectKey), "csrf").Count)
}

// Dropping a transaction finds each of its callbacks by seq: it reads as
// many records for a transaction whose callbacks are far apart in a large
// log as for one whose callbacks follow each other, and leaves the other
// transactions' callbacks alone.
func TestDeliveryLogForget_ReadsTheTransactionsCallbacksOnly(t *testing.T) {
	p := &Project{Key: "k"}
	readsToForget := func(between int) int {
		l := newDeliveryLog(between+10, minInFlightAllowance)
		t0 := &txn{id: 1, project: p}
		l.add(t0, "", callback.Processing)
		for i := range between {
			l.add(&txn{id: int64(i + 2), project: p}, "", callback.Completed)
		}
		l.add(t0, "", callback.Completed)
		read := l.forget(t0)
		_, ok := l.get(1)
		assert.False(t, ok, "the first callback is dropped")
		_, ok = l.get(between + 2)
		assert.False(t, ok, "the last callback is dropped")
		assert.Len(t, l.records(), between, "the others' callbacks are kept")
		return read
	}
	near, far := readsToForget(0), readsToForget(100000)
	t.Logf("records read to forget two callbacks: %d next to each other, %d with 100,000 between", near, far)
	assert.LessOrEqual(t, far, near+4, "a transaction's callbacks far apart cost no more to drop than near ones")
}

// A callback dropped from the log while its retry was scheduled takes the
// retry's wake-up with it, rather than leaving a timer to fire an hour
// later on nothing.
func TestResetProject_StopsTheRetryWakeUpsOfItsCallbacks(t *testing.T) {
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(rcv.Close)
	s := NewServer(WithCallbackURL(rcv.URL), WithCallbackRetry(3, time.Hour)) // a clock that follows real time
	t.Cleanup(s.Close)
	completePayments(s, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.WaitForDelivery(ctx, func(d Delivery) bool { return !d.NextAttempt.IsZero() })
	require.NoError(t, err, "the first attempt is refused and a retry scheduled")
	wakeUps := func() int {
		s.deliveries.mu.Lock()
		defer s.deliveries.mu.Unlock()
		return len(s.deliveries.timers)
	}
	require.Eventually(t, func() bool { return wakeUps() == 1 }, 10*time.Second, time.Millisecond, "the retry waits for its wake-up")

	s.ResetProject(s.ProjectKey)
	assert.Empty(t, s.Deliveries())
	assert.Zero(t, wakeUps(), "the wake-up went with its callback")
}
