package paygatetest

import (
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// resolveUser serves user/resolve: 40002 without identifier, 40010 without
// email in the basic form, 40011 without ip. A known identifier returns the
// existing id.
func (s *Server) resolveUser(c *call) (any, *Error) {
	in := userInput{
		identifier: c.get("identifier"), displayName: c.get("display_name"), email: c.get("email"),
		phone: c.get("phone"), ip: c.get("ip"), locale: c.get("locale"),
	}
	if in.identifier == "" {
		return nil, NewError(paygate.CodeUserIdentifierMissing, "")
	}
	if c.basic() && in.email == "" {
		return nil, NewError(paygate.CodeUserEmailMissing, "")
	}
	if in.ip == "" {
		return nil, NewError(paygate.CodeUserIPMissing, "")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.resolveUser(c.project, in)
	n, _ := strconv.ParseInt(u.id, 10, 64)
	return map[string]any{"id": n}, nil
}

// changeRecurring serves user/changeRecurring: a new interval (which is
// also the frequency; 0 leaves manual recurring only; the next automatic
// payment comes interval days from now) and price of the automatic
// payments. A user without a subscription has nothing to change: success,
// as the spec leaves that case open.
func (s *Server) changeRecurring(c *call) (any, *Error) {
	interval, hasInterval := atoiParam(c.get("interval"))
	if c.get("interval") != "" && !hasInterval {
		return nil, errMerchantData("interval")
	}
	var price decimal.Decimal
	var currency string
	if c.get("price") != "" {
		var err *Error
		if price, currency, err = readMoney(c, "price"); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err != nil || sub == nil {
		return success(err)
	}
	if hasInterval {
		sub.interval = interval
		sub.nextAuto = addDays(s.clock.Now(), interval)
	}
	if !price.IsZero() {
		sub.price, sub.currency = price, currency
	}
	return success(nil)
}

// cancelRecurring serves user/cancelRecurring; later manual recurring
// charges are 40310. A user without a subscription has nothing to cancel:
// success.
func (s *Server) cancelRecurring(c *call) (any, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err == nil && sub != nil {
		sub.cancelled = true
	}
	return success(err)
}

// subscriptionOf finds the subscription of the call's user: nil when the
// user has none, 40002 or 40406 when the user is missing or unknown.
func (s *Server) subscriptionOf(c *call) (*subscription, *Error) {
	u, err := s.st.lookupUser(c.project, c.get("user"))
	if err != nil {
		return nil, err
	}
	return s.st.recurring[u.id], nil
}

// success is the {"success": true} answer, or err.
func success(err *Error) (any, *Error) {
	if err != nil {
		return nil, err
	}
	return map[string]any{"success": true}, nil
}
