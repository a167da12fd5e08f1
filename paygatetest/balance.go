package paygatetest

import (
	"maps"

	"github.com/shopspring/decimal"
)

// baseCurrency is the currency of base_amount.
const baseCurrency = "EUR"

// balance serves GET balance for currency (default EUR): what completed
// payments brought in less fees, less reversals and payouts. The sandbox
// keeps no rolling reserve; base_amount is the total of every currency in
// EUR at fixed rates.
func (s *Server) balance(c *call) (any, *Error) {
	cur := baseCurrency
	if v := c.get("currency"); v != "" {
		var ok bool
		if cur, ok = readCurrency(v); !ok {
			return nil, errMerchantData("currency")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.st.balances[c.project.Key]
	base := decimal.Zero
	for k, v := range all {
		base = base.Add(v.Mul(baseRate(k)))
	}
	return map[string]any{
		"amount": all[cur].StringFixed(2), "rolling_reserve": "0.00", "currency": cur,
		"base_amount": base.StringFixed(2), "base_rolling_reserve": "0.00",
	}, nil
}

// baseRate converts a unit of currency into the base currency at the
// sandbox's fixed rates; a currency not listed converts one to one.
func baseRate(currency string) decimal.Decimal {
	rate := "1"
	switch currency {
	case "USD":
		rate = "0.92"
	case "GBP":
		rate = "1.17"
	case "CHF":
		rate = "1.05"
	}
	return decimal.RequireFromString(rate)
}

// Balances are the balances of the project with public key key by
// currency (a copy): the amounts GET balance answers (the sandbox keeps no
// rolling reserve); a currency it never moved is absent.
func (s *Server) Balances(key string) map[string]decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.st.balances[key])
}
