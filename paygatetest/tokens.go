package paygatetest

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
