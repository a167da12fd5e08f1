// Package paygatetest runs a stateful sandbox of the payment gateway for
// tests, in the manner of net/http/httptest: start it, point a client at its
// URL, close it.
//
//	srv := paygatetest.NewServer(paygatetest.WithCallbackURL(receiver.URL))
//	defer srv.Close()
//	client := srv.Client() // a *paygate.Client for srv.ProjectKey / srv.PrivateKey
//
// Unlike a canned mock, the sandbox remembers: users, single-use temporary
// card tokens that expire after 10 minutes, permanent tokens, recurring
// subscriptions with frequency enforcement, reversals, alternative-method
// payments, payouts and the balance. It authenticates every request as the
// gateway does (40001 no project, 40401 unknown project, 40101 no
// signature, 40301 wrong signature; card/getToken, payout-types and
// payout-parameters are accepted unsigned), answers in the extended or the
// basic form of the project, and POSTs a signed callback to the project's
// callback URL on every status change, retrying until the receiver answers
// 2xx.
//
// # Test cards
//
//	4242424242424242  approved: completed
//	4000000000003220  3-D Secure: authenticating with an acs object; completes after the ACS step
//	4000000000000002  declined: failed
//	4000000000000119  processing, then completed shortly after
//	4000000000009995  blocked: error 40309
//
// Any other number that passes the Luhn check is approved. With 3ds=1, or
// on a project with forced 3-D Secure, every card that is not declined goes
// through the ACS.
//
// # 3-D Secure
//
// The acs object points at the sandbox's ACS page, {URL}/acs. POSTing its
// parameters there shows a password form; the password 1234 passes, any
// other fails. Submitting it returns a page whose form POSTs PaRes and MD to
// the TermUrl (the charge's acs_return_url) by itself; card/authenticate
// with them completes or fails the payment. Tests that skip the browser
// can get the same PaRes from Server.PaRes.
//
// # Alternative methods
//
// transaction/create opens a payment that the payer approves or declines
// at {URL}/confirm/{id}/; the page redirects to success_url or fail_url.
//
// # Events, faults and the control plane
//
// Server.Trigger applies what the world outside the merchant's code does
// to a transaction (a chargeback, its retrieval, a penalty, a payer's
// approval, a payout completed or cancelled; see Event), with the
// transactions, statuses, balance moves and callbacks the gateway makes.
// Server.InjectFault makes the next calls of a method fail (see Fault),
// among them the unknown outcome: processed, then no answer. The same
// operations, with the clock, the delivery log, the callback URL and
// Reset, are served as JSON under {URL}/sandbox/ to a request carrying
// "Authorization: Bearer <private key>", and {URL}/sandbox/ in a browser
// is a dashboard of it all.
//
// # Time
//
// Token expiry and recurring frequency read the server's Clock. Pass a
// frozen one with WithClock(NewClock(start)) and move it with Advance.
// Payments on the processing card and payouts settle after a short real
// delay (WithProcessingDelay, default 200ms), at once when the clock is
// advanced, or when SettlePending is called.
//
// # Callbacks
//
// Each status change with a callback status (processing, completed, failed,
// verified, reversed, refund_completed, payout_completed, payout_failed) is
// recorded as a Delivery and, when the project has a callback URL, POSTed
// there form-encoded with every field of the gateway's Events table, signed
// with the project's private key. Failed attempts are retried with a
// doubling delay (WithCallbackRetry). Deliveries lists them and
// WaitForDelivery waits for one.
//
// # Decisions where the gateway's documentation is silent
//
//   - A parameter that is missing or malformed and has no code of its own
//     (price, currency, description, amount, order_id over 64 characters,
//     list filters, payout parameters) is 40014, the message naming it.
//   - An unknown path, and an extended-only method (transaction/create,
//     payout, balance, transactions) asked of a basic-form project, is
//     40400 "method not found" with HTTP 404. payout-types and
//     payout-parameters answer in both forms, as the spec does not take
//     them from the basic form.
//   - Transaction ids are 19 digits from 1000000000000000001, user ids from
//     1, per server. The fee is 2.9% of the price to four decimals; payouts
//     and verifications have none.
//   - A recurring subscription lasts 365 days; its frequency is its
//     interval in days (at least 1), and the first repeated payment is
//     allowed after the trial or the frequency, whichever is longer. The
//     sandbox never charges a subscription by itself.
//   - JSONP answers (card/getToken with callback) always have HTTP 200, so
//     that a browser runs the callback with an error object too.
package paygatetest
