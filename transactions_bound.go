package paygate

// ListBound bounds a walk over a listing: it stops with a
// [*ListingBoundError] (errors.Is [ErrListingBound]) rather than fetch more
// than Pages pages or yield more than Items transactions.
type ListBound struct {
	Pages, Items int
}

// The default bounds of a walk over a listing, overridden per call with
// [WithListBound]. An order has few transactions (a payment, its refunds,
// a chargeback), so the walks that settle an order stop much sooner than a
// listing walked on purpose.
var (
	// DefaultListBound bounds [TransactionsService.All].
	DefaultListBound = ListBound{Pages: 1000, Items: 100_000}
	// DefaultReconcileBound bounds [TransactionsService.Reconcile] and
	// [TransactionsService.Settle].
	DefaultReconcileBound = ListBound{Pages: 20, Items: 2000}
)

// listBound is def with the sides WithListBound set among opts replaced.
func listBound(def ListBound, opts []CallOption) ListBound {
	var settings callSettings
	for _, o := range opts {
		o(&settings)
	}
	if settings.listBound.Pages > 0 {
		def.Pages = settings.listBound.Pages
	}
	if settings.listBound.Items > 0 {
		def.Items = settings.listBound.Items
	}
	return def
}
