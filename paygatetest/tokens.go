package paygatetest

import (
	"strings"
	"time"
)

// The test cards. Any other number that passes the Luhn check is approved.
const (
	// CardApproved is approved without 3-D Secure: completed.
	CardApproved = "4242424242424242"
	// Card3DSecure is enrolled in 3-D Secure: the charge is authenticating
	// with an acs object and completes after the ACS step.
	Card3DSecure = "4000000000003220"
	// CardDeclined is declined: failed. A payout to it fails too.
	CardDeclined = "4000000000000002"
	// CardProcessing is processing first and completed shortly after.
	CardProcessing = "4000000000000119"
	// CardBlocked is blocked: error 40309.
	CardBlocked = "4000000000009995"
)

// ACSPassword is the 3-D Secure password the ACS page accepts; any other
// fails the authentication.
const ACSPassword = "1234"

// verificationPrice is what verify_card=1 charges, in EUR.
const verificationPrice = "1.00"

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
	case number[0] == '5' || strings.HasPrefix(number, "2"):
		return "mastercard"
	case strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37"):
		return "amex"
	}
	return "unknown"
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
