package paygatetest

import "github.com/shopspring/decimal"

// maxShared bounds each table of values that transactions share: beyond
// it a value is kept as it came, unshared, so that the tables cost at most
// a few megabytes whatever the traffic.
const maxShared = 10000

// sameCard returns the copy of cd the server already holds, if any: the
// charges of one card, in tests mostly the few test cards, then share one
// record instead of keeping one each. The caller holds Server.mu.
func (st *state) sameCard(cd *cardData) *cardData {
	if c, ok := st.cards[*cd]; ok {
		return c
	}
	if len(st.cards) < maxShared {
		st.cards[*cd] = cd
	}
	return cd
}

// amountKey is an amount whose coefficient fits an int64, as a map key.
type amountKey struct {
	coefficient int64
	exponent    int32
}

// sameAmount returns the copy of d the server already holds, if any, so
// that transactions of one price share its digits. The caller holds
// Server.mu.
func (st *state) sameAmount(d decimal.Decimal) decimal.Decimal {
	if d.NumDigits() > 18 {
		return d
	}
	k := amountKey{d.CoefficientInt64(), d.Exponent()}
	if a, ok := st.amounts[k]; ok {
		return a
	}
	if len(st.amounts) < maxShared {
		st.amounts[k] = d
	}
	return d
}
