package paygatetest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

// writeJSON writes v as JSON, or as a JSONP call of fn when fn is set.
func writeJSON(w http.ResponseWriter, fn string, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "paygatetest: cannot encode the response", http.StatusInternalServerError)
		return
	}
	if fn != "" {
		// A browser runs a script only from a 2xx answer, so a JSONP error is
		// delivered with 200 and the error object as the argument.
		w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(fn + "(" + string(body) + ");"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// WriteError writes e as the gateway's error object, with the HTTP status
// of its code.
func WriteError(w http.ResponseWriter, e *Error) { writeError(w, "", e) }

// writeError is WriteError as a JSONP call of fn when fn is set.
func writeError(w http.ResponseWriter, fn string, e *Error) {
	writeJSON(w, fn, e.code.HTTPStatus(), map[string]any{
		"error": map[string]any{"code": int(e.code), "message": e.message},
	})
}

// paymentJSON is the charge / authenticate / recurring response: the basic
// form has only id, success, card, acs, permanentToken and recurring.
func (s *Server) paymentJSON(t *txn, basic bool, acsReturnURL string) map[string]any {
	x := t.extra()
	var permanent any
	if x.permanentToken != "" {
		permanent = x.permanentToken
	}
	out := map[string]any{
		"id":             t.id,
		"success":        t.status != paygate.StatusFailed,
		"card":           cardJSON(t.card, true),
		"permanentToken": permanent,
	}
	if t.status == paygate.StatusAuthenticating {
		out["acs"] = map[string]any{
			"url":        s.publicURL + "/acs",
			"parameters": map[string]any{"PaReq": "PAREQ-" + x.md, "MD": x.md, "TermUrl": acsReturnURL},
		}
	}
	if sub := s.st.recurring[userID(t.user)]; x.recurring && sub != nil {
		out["recurring"] = map[string]any{"frequency": sub.frequency(), "endsAt": formatTime(sub.endsAt)}
	}
	if basic {
		return out
	}
	for k, v := range transactionFields(t, false) {
		out[k] = v
	}
	return out
}

// transactionFields are the camel-case fields of a transaction; listing
// adds what by-id and list carry (method, originalStatus, reason, card).
func transactionFields(t *txn, listing bool) map[string]any {
	var ref, orderID any
	if t.referenceID != 0 {
		ref = t.referenceID
	}
	if t.orderID != "" {
		orderID = t.orderID
	}
	out := map[string]any{
		"id": t.id, "orderId": orderID, "referenceId": ref, "price": t.price.StringFixed(2),
		"fee": t.fee().StringFixed(4), "currency": t.currency, "type": t.typ, "status": t.status,
		"user": userJSON(t.user), "createdAt": formatTime(t.createdAt), "updatedAt": formatTime(t.updatedAt),
	}
	if listing {
		var reason any
		if r := t.reason(); r != "" {
			reason = r
		}
		out["status"] = t.effectiveStatus()
		out["method"] = t.method
		out["originalStatus"] = t.status
		out["reason"] = reason
		out["card"] = cardJSON(t.card, false)
	}
	return out
}

// wireType is t's type as the project's form names it: the basic form
// calls a payment from a user a deposit.
func wireType(t *txn) paygate.TransactionType {
	if t.typ == paygate.TypePayment && t.project.Form == paygate.FormBasic {
		return paygate.TypeDeposit
	}
	return t.typ
}

// userJSON is the User object of responses.
func userJSON(u *user) map[string]any {
	if u == nil {
		return nil
	}
	return map[string]any{
		"id": u.id, "identifier": u.identifier, "displayName": u.displayName, "email": u.email,
		"phone": u.phone, "ip": u.ip, "locale": u.locale,
	}
}

// cardJSON is the Card-response object; charge and reverse responses add
// expiresAt, holder, bankName and country.
func cardJSON(cd *cardData, charge bool) map[string]any {
	if cd == nil {
		return nil
	}
	scheme := cardScheme(cd.number)
	last := cd.number[len(cd.number)-4:]
	out := map[string]any{
		"lastFour": last, "mask": strings.Repeat("*", len(cd.number)-4) + last,
		"type": scheme, "scheme": scheme, "expirationMonth": cd.month, "expirationYear": cd.year,
	}
	if charge {
		var holder any
		if cd.holder != "" {
			holder = cd.holder
		}
		// A card expires at the end of its expiry month.
		out["expiresAt"] = formatTime(time.Date(cd.year, time.Month(cd.month)+1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second))
		out["holder"] = holder
		out["bankName"] = "Sandbox Bank"
		out["country"] = "US"
	}
	return out
}

func cardScheme(number string) string {
	switch {
	case strings.HasPrefix(number, "4"):
		return "visa"
	case strings.HasPrefix(number, "5") || strings.HasPrefix(number, "2"):
		return "mastercard"
	case strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37"):
		return "amex"
	}
	return "unknown"
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func idString(n int64) string { return strconv.FormatInt(n, 10) }
