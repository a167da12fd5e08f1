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
// signature, 40301 wrong signature, whose message shows the canonical
// string the sandbox signed, card data masked, and where its key comes
// from (WithKeySource), never the key; card/getToken, payout-types and
// payout-parameters are accepted unsigned), answers in the extended or the
// basic form of the project, and POSTs a signed callback to the project's
// callback URL on every status change, retrying on a schedule until the
// receiver answers 2xx.
//
// # Test cards
//
// The test cards are the Card constants: [CardApproved], [Card3DSecure],
// [CardDeclined], [CardProcessing] and [CardBlocked], each documented with
// what it does. Any other number that passes the Luhn check is approved.
// With 3ds=1, or on a project with forced 3-D Secure, every card that is
// not declined goes through the ACS. verify_card=1 makes a 1.00 EUR
// verification that ends verified and does not move the balance. A payout
// to CardDeclined fails (payout_failed).
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
// at {URL}/confirm/{id}/; the page redirects to success_url or fail_url. A
// test without a browser GETs the page and posts its form back, with the
// hidden token field.
//
// # Events, faults and the control plane
//
// Server.Trigger applies what the world outside the merchant's code does
// to a transaction (a chargeback, its retrieval, a penalty, a payer's
// approval, a payout completed or cancelled; see Event), with the
// transactions, statuses, balance moves and callbacks the gateway makes;
// an event that does not apply is ErrEventNotApplicable. Server.InjectFault
// makes the next calls of a method fail (see Fault), among them the unknown
// outcome: processed, then no answer. The Go methods act on the whole
// server: the test that holds it owns it.
//
// The same operations are served as JSON under {URL}/sandbox/, for tests
// in any language (cmd/paygate-sandbox serves them beside the API). Every
// request carries "Authorization: Bearer <private key>" of one of the
// server's projects (403 without it) and acts within that project only;
// input is a form, a query or a JSON object (a body of at most 64 KiB,
// values of at most 2048 bytes), output is JSON, errors are the gateway's
// error object (Error, written by WriteError, with the sandbox's own codes
// CodeForbidden, CodeMethodNotFound, CodeConflict and the others):
//
//	GET  /sandbox/clock                           Server.Clock().Now(): {"now": "<RFC 3339>"}; any key
//	POST /sandbox/clock advance=<Go duration>     Server.Advance: {"now": "<RFC 3339>"}; 0 to 10 years;
//	                                               only the server's own project moves it
//	GET  /sandbox/transactions                    Server.TransactionsPage: newest first, filtered
//	                                               and paged (see The control plane below)
//	POST /sandbox/transactions/{id}/{event}       Server.TriggerProject: the by-id JSON of the transaction
//	                                               made (or changed); 409 when it does not apply
//	POST /sandbox/faults method= fault= count=    Server.InjectProjectFault: count 1 to 1000, 0 removes
//	GET  /sandbox/deliveries                      Server.DeliveriesPage: id, url, fields, attempts,
//	                                               next_attempt, given_up; paged
//	POST /sandbox/deliveries/{id}/redeliver       Server.Redeliver; answers after the new attempt (AwaitAttempt)
//	POST /sandbox/fixtures (a JSON document)      Server.LoadProjectFixtures: see Fixtures below
//	POST /sandbox/login-url                       Server.LoginURL: {"url": "...", "expires_in": 300}
//	GET  /sandbox/callback-url                    Server.ProjectCallbackURL: {"url": "..."}
//	POST /sandbox/callback-url url=               Server.SetProjectCallbackURL; empty records callbacks only;
//	                                               answers {"url": "...", "previous": "..."}
//	POST /sandbox/reset                           Server.ResetProject: forgets the project's users, tokens,
//	                                               transactions, subscriptions, balance and faults
//
// Wrong keys (and wrong signatures on /v1) are counted per client address
// (20 at once, then 2 a second): past that, every request with a key from
// that address, the right one included, gets 429 with Retry-After. Others'
// guesses never refuse the right key: past the budget of all addresses
// together (100, then 20 a second) only the answers to wrong keys are
// held, up to about 5 seconds. A valid session cookie is never refused.
//
// # The dashboard
//
// {URL}/sandbox/ in a browser is a server-rendered page, without
// JavaScript, to leave open while developing: the transactions, newest
// first, with status, amount, order id, card mask and method; each one's
// history and callbacks with every delivery attempt and a redeliver
// button; buttons for the events that apply; the clock, the balance, the
// callback URL, a fault form and reset. A browser without a session gets a
// form asking for a project's private key (rate-limited as above) and then
// sees that project only. The session is a cookie (HttpOnly,
// SameSite=Strict) holding a random id and an HMAC under a secret drawn at
// start, never the key; a new sign-in ends the project's previous session,
// and a session lasts 12 hours. Every button is a POST carrying a token
// bound to the session, a request whose Origin or Referer is another site
// is refused, and the pages refuse to be framed. The module
// paygatetest/dashboardtest tests it in headless Chromium.
//
// # The control plane
//
// ControlPlaneHelp describes every operation above, for a command's help.
//
// Every id in every control-plane answer is a JSON string: transaction and
// reference ids, user ids, delivery ids, cursors and the fixtures' ids. A
// transaction id has 19 digits, more than a JavaScript number (a float64)
// holds, and a test in JavaScript reads these answers with JSON.parse.
// The API under /v1/ answers as the gateway does, ids as JSON numbers;
// docs/testing.md shows how a test outside Go reads them exactly.
//
// GET /sandbox/transactions answers the project's transactions newest
// first, each as GET transactions/{id} shows it, in
// {"transactions":[...],"total":N,"page":P,"per_page":N,"next_cursor":"ID"}:
// status (with later effects, as the API's list), type, order_id and
// from/to (the creation time, inclusive) select them; a page holds
// per_page (100 unless given, at most 1000); page counts from 1, or
// cursor takes the next_cursor of the previous answer, absent on the last
// page. GET /sandbox/deliveries answers a JSON array, oldest first, paged
// the same way (its cursor is the id of the last delivery of the previous
// page); each delivery carries next_attempt, when the retry schedule sends
// it next (absent when none is due). Redeliver answers the delivery after
// its new attempt, or as it stands when the attempt takes over 5 seconds.
// An event that is unknown (40400) or does not apply now (40900) is
// refused with a message listing the events that apply to the
// transaction now.
//
// Server.LoginURL (POST /sandbox/login-url for the project of the key)
// makes a link, {URL}/sandbox/login?token=..., that opens the dashboard
// in a browser without the key: once, within 5 minutes; then the browser
// holds the usual session cookie. A used or expired link shows the key
// form, and a wrong token counts as a wrong key. cmd/paygate-sandbox
// prints one at start.
//
// # Fixtures
//
// Server.LoadFixtures, WithFixtures, POST /sandbox/fixtures and
// paygate-sandbox -fixtures FILE make a scenario in one call, so that a
// test in any language starts from a known state. The file is a JSON
// object (testdata/fixtures/example.json shows every entry):
//
//	{
//	  "users":    [{"name": "alice", "identifier": "...", "email": "...", "ip": "...", "phone": "..."}],
//	  "cards":    [{"name": "alice-visa", "user": "alice", "number": "4242424242424242"}],
//	  "payments": [{"name": "paid", "user": "alice", "card": "alice-visa", "status": "completed",
//	                "price": "25.00", "currency": "EUR", "order_id": "order-1", "description": "...",
//	                "remember": true, "recurring": {"interval": 30, "trial": 0}}],
//	  "payouts":  [{"name": "payout", "type": "CREDIT_CARD", "amount": "10.00", "currency": "EUR",
//	                "order_id": "payout-1", "account": "4242424242424242", "params": {"cardHolder": "..."}}],
//	  "steps":    [{"event": "chargeback", "transaction": "paid", "name": "chargeback"},
//	               {"refund": "paid", "amount": "2.00", "name": "refund"},
//	               {"advance": "24h"}, {"settle": true}]
//	}
//
// The entries are made in this order (users, cards, payments, payouts,
// then each step), by the same signed calls, events and clock moves a
// test would make, so they behave as such. A user's identifier is its
// name unless given; a card is remembered by a 1.00 EUR verification with
// remember=1; a payment's card is a number, the name of a remembered card,
// or, without one, the test card of its status (completed, failed,
// processing, authenticating); recurring subscribes the user. Every field
// but the names that refer to earlier entries has a default. The answer
// gives the ids made by name: {"users":{...},"transactions":{...},
// "cards":{...}} (permanent tokens, of the cards and of payments with
// remember). The first entry the sandbox refuses stops the load with an
// error naming it (ErrFixtures; 40900 on the control plane); the entries
// before it stay made. A file is at most 1 MiB (MaxFixtureBody) and 1000 entries, and its
// advance steps make at most the in-flight allowance of automatic
// recurring payments (see Retention): an advance step once they have made
// that many is refused.
//
// # State across restarts
//
// WithStateFile (paygate-sandbox -state FILE) keeps the sandbox's state in
// a file: users, tokens, transactions, balances, subscriptions, callbacks
// with their attempts and next attempt, the clock's advance and the id
// counters. It is read at start, record by record as it is decoded (a start
// costs about what the state it makes costs, in time and memory), and
// written at most every 200 ms after a change, and at Close, to a temporary
// file beside it (.FILE.sandbox-tmp-N) renamed over it: the file is always
// one whole state, and a process killed with SIGKILL loses at most the last
// 200 ms; the temporary file such a kill leaves is removed at the next
// start, and no other file. A FILE that is a symbolic link stays one: the
// file it names is written. After a restart, processing payments settle,
// callbacks that were queued are sent and retries keep their schedule. The
// file begins with its format version, and holds its fields in the order
// the sandbox writes them; a file that is corrupt, of a newer version, out
// of that order, of a project the sandbox does not serve, or with a number
// out of range (a counter, an id, an attempt count, a card's expiry, a time
// after the year 8000, an amount the API would refuse) stops the start with
// an error naming the file and the field (ErrStateFile): the sandbox never
// starts empty in its place, nor trips over the number later. One sandbox
// at a time runs on a file: it holds a lock on FILE.lock beside it (left in
// place; the lock goes with the process), and a second one started on the
// file, by its name or a link, stops with ErrStateFileInUse naming the
// holder's process (outside Unix the file is not locked). Only what may
// change the state is followed by a write: API calls but the reads (status,
// transactions, balance, payout types and parameters), control-plane POSTs,
// a confirm form that decides a payment, clock moves and callbacks; a read,
// the confirm, ACS and dashboard pages, or a request refused before it is
// served (no or a wrong key or signature, an unknown path, a body over the
// bound, too many guesses) writes nothing, so that no client keeps the
// sandbox writing its whole state. The file holds no key and no card number
// but the test cards' (other cards keep their first six and last four
// digits, zeros between), readable by its owner only. Faults, dashboard
// sessions, login links and the confirm page's form tokens are not kept (a
// confirm page open across a restart is opened again), and projects with
// their settings (a callback URL set through the control plane included)
// come from the options at each start.
//
// # Time
//
// Token expiry, recurring frequency, automatic recurring charges and
// callback retries read the server's Clock. Pass a frozen one with
// WithClock(NewClock(start)) and move it with Advance. Payments on the
// processing card and payouts settle after a short real delay
// (WithProcessingDelay, default 200ms), at once when the clock is
// advanced, or when SettlePending is called.
//
// # Recurring
//
// A charge with recurring=1 subscribes its user for 365 days. The
// Recurring object's frequency is the interval in days (0 for
// recurring_interval 0). With an interval above 0 the sandbox charges the
// subscription by itself every interval days, the first time after the
// trial if that is longer, as its clock passes the dates: a payment
// referencing the subscribing charge, carrying that charge's order_id and
// price (or the price set by user/changeRecurring). Manual charges
// (card/processRecurring) are "outside the interval": neither the
// subscribing charge nor the trial holds them back, and only a manual
// charge sooner than frequency days after the previous manual charge is
// 40502 (never with frequency 0).
//
// # JSON bodies
//
// Besides form bodies, a POST may carry a JSON object (Content-Type
// application/json), as some existing clients send it. It is read as the
// form fields a PHP client would send: nested objects and arrays become
// bracket keys ({"card":{"number":..}} is card[number]), numbers keep
// their literal text (a 19-digit id is exact), true is "1", false and null
// are "". project and signature are inside the object, and the signature
// is checked over those strings.
//
// # Callbacks
//
// Each status change with a callback status (processing, completed, failed,
// verified, reversed, refund_completed, payout_completed, payout_failed, and
// through events waiting_approval, chargeback_completed,
// retrieval_completed, penalty_completed, payout_cancelled and
// payout_abandoned) is
// recorded as a Delivery and, when the project has a callback URL, POSTed
// there form-encoded with every field of the gateway's Events table, signed
// with the project's private key. The first attempt is made at once; one
// the receiver does not answer with 2xx is retried on the sandbox's clock
// 1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours, 12 hours and 24 hours
// later, 8 attempts over about 45 hours (WithCallbackRetry changes the
// schedule), each wait lengthened by a random part of up to a tenth of
// itself, so that callbacks that failed together are not all retried at
// the same instant. A redirect is an answer, never followed. Each
// destination is served by at most 4 connections; a callback that finds
// them busy waits its turn in the destination's queue, with no attempt
// recorded, however long the receiver takes. The callbacks waiting (queued,
// being sent, or waiting for a retry) are bounded; see Retention. Deliveries
// lists the callbacks with the History of their attempts, WaitForDelivery
// waits for one, and Redeliver sends one again.
//
// # Bounds
//
// The sandbox is meant to run for days and may be reachable by others, so
// what any caller can make it spend is bounded:
//
//   - Connections: at most 512 at once. One that arrives at the cap takes
//     the place of the connection that has waited longest without a
//     request in progress (idle after a request, or not sending one yet);
//     when all 512 are serving requests it waits in the listen queue until
//     one is done, so that idle connections never keep a request waiting
//     and a request in progress is never cut. Timeouts: read-header 5s,
//     read 30s, write 30s, idle 30s.
//   - Requests: a body of 1 MiB (refused unread when its Content-Length
//     says more); 256 parameters, the query string and the body together,
//     where in a JSON body every value counts, objects and arrays
//     included; names of 256 bytes, brackets included; values of 4 KiB;
//     JSON nested 8 levels. 40000 beyond, naming the bound. The bounds
//     apply while the request is read, which stops at the first byte past
//     one, so that refusing a request costs reading its first few
//     kilobytes whatever follows, and nothing is parsed or locked before.
//   - Amounts: 32 characters, 12 decimal places, below 10^15.
//   - Temporary tokens (card/getToken is unsigned): forgotten an hour after
//     they expire (then 40402 instead of 40304), and beyond 100,000 the
//     oldest first.
//   - Transactions: the newest 100,000 are kept (WithRetention, the
//     standalone server's -retain); see Retention below.
//   - Callbacks: kept as long as their transaction; besides, the delivery
//     log drops its oldest tenth once it holds a tenth more than twice the
//     retention (callbacks of transactions Reset forgot); each keeps its
//     last 50 attempts. Callbacks waiting to be sent: the in-flight
//     allowance (a tenth of the retention, at least 100: 10,000 by
//     default); beyond it the oldest waiting are given up (see Retention).
//   - Automatic recurring payments: one clock move makes at most the
//     in-flight allowance of them, and no more than there is room for
//     their callbacks to wait, 64 at a time, other requests served in
//     between; the payments still due are made by a later move (a move by
//     0s will do, once the receiver has taken the callbacks). A fixture file's advance steps together make at
//     most about as many: a step once they have made that many is refused.
//   - GET transactions answers at most 1000 transactions a page.
//   - The control plane: a body of 64 KiB, values of 2 KiB, a clock
//     advance of at most 10 years, faults for at most 1000 calls; a
//     fixture file of 1 MiB and 1000 entries; lists of 1000 a page; 100
//     login links not used yet (beyond, the oldest stops working).
//
// Look-ups by id, token, order id and 3-D Secure merchant data are
// indexed, and cost the same however many transactions share an order id.
// A page of GET /sandbox/deliveries by cursor, the dashboard's callbacks
// and counts, and dropping a transaction with its callbacks cost the same
// however many callbacks the delivery log holds (a page by number still
// skips, without copying, the project's callbacks before it). Making room
// beyond the retention costs the same however many transactions are in
// flight, and a clock move looks only at the processing ones.
// Users and permanent tokens come only from signed requests and
// are kept for the server's life.
//
// # Retention
//
// A sandbox serving CI for weeks keeps the newest transactions, 100,000 by
// default (WithRetention; -retain for cmd/paygate-sandbox), so that its
// memory stays bounded: each kept charge costs under a kilobyte of the
// process's memory, its callbacks included. Making a transaction beyond the bound drops the
// oldest one in a final state, with everything that names it: its
// callbacks in the delivery log, its place in the order id index, its 3-D
// Secure merchant data. A transaction still in flight is never dropped and
// counts towards the bound: opened (an alternative-method payment the payer
// has not decided), authenticating, processing (payments and payouts),
// waiting_approval, or with a callback not yet done (still retried, or
// queued).
//
// What is in flight is bounded too, so that the transactions kept never
// exceed the retention plus an in-flight allowance of a tenth of it (at
// least 100; 10,000 by default), plus those whose status is not final
// yet, whatever a receiver or a clock move does. At most the allowance of
// callbacks wait to be sent: a receiver slower than the charges, or down,
// would otherwise keep every callback and, through them, every
// transaction. Past it the callbacks that have waited longest are given up:
// done, not delivered, no attempt recorded, Delivery.GivenUp set, counted
// by Server.CallbacksGivenUp, and their transactions may then be dropped;
// Redeliver still sends one while it is kept. And one clock move makes at
// most the allowance of automatic recurring payments (a year over a few
// hundred daily subscriptions would be hundreds of thousands in one
// request), fewer when callbacks already wait: a move never makes the
// sandbox give callbacks up. The others stay due for a later move. Each transaction is dropped by its own age: a refund,
// chargeback, retrieval or penalty may outlive the payment it names (though
// making one never drops the transaction it follows), and a subscription
// outlives the charge that started it (its automatic payments keep that
// charge's id as referenceId).
//
// A dropped transaction is answered as one never made: transaction/status
// by id or order_id, transactions/{id}, transaction/reverse and the
// control plane's events answer 40403 (Trigger: ErrTransactionNotFound);
// GET transactions lists only the transactions kept, and totalCount counts
// only them; its confirm page answers 404. Its callbacks leave Deliveries
// and GET /sandbox/deliveries; Redeliver of one fails, and the control
// plane answers 40400, as for a callback never made. The dashboard shows
// the newest 100 transactions kept, and its counts are of those kept.
//
// # Rules beyond the spec
//
// The sandbox is never stricter than the spec: where the spec leaves a
// value open it takes what a real gateway plausibly takes, and a
// basic-form project never gets a code the spec gives only to the extended
// form (40014, 40015, 42201, 50001: it gets 40000 with the same message).
// The rules it adds, each for a reason:
//
//   - The bounds above, answered 40000 (40014 for an amount): a sandbox
//     must not be made to spend unbounded memory or time. A transaction
//     dropped beyond the retention is 40403, as the gateway answers an id it
//     does not know.
//   - Past the in-flight allowance (see Retention), the callbacks that
//     waited longest are given up rather than new charges refused: a fake
//     gateway stays usable for the tests that run now, at the cost of
//     callbacks a slow or absent receiver would take hours to get. A clock
//     move makes at most that many automatic payments, fewer when
//     callbacks wait, the rest at a later move, so that one request costs
//     bounded time and memory and a receiver that keeps up gets every
//     callback.
//   - Callback retries carry jitter (up to a tenth of each wait): receivers
//     that failed together are not all hit again at the same instant.
//   - A price of 0 (except with verify_card=1, which charges 1 EUR
//     anyway), a negative price or a negative amount is 40014: a payment
//     moves money.
//   - A list time filter that is no time at all is 40014 naming it:
//     ignoring it would list the wrong transactions without a word.
//   - A card whose expiry month has passed on the sandbox's clock is 40005
//     when tokenized or charged by its number, as an issuer would refuse
//     it; a permanent token whose card expired since is charged.
//   - The JSONP callback name of card/getToken is a JavaScript name of at
//     most 128 characters: anything else would let a page inject script.
//   - The permanent token a processing charge with remember=1 answers is
//     40402 until the charge completes, and stays so when it fails, is
//     cancelled or abandoned: only a charge that went through remembers a
//     card, or a declined card would stay chargeable.
//   - The confirm page takes the payer's decision only from a form it
//     served: a single-use token bound to the payment (the forms of its 8
//     newest page views), and, when the browser sends Origin or Referer,
//     the sandbox's own host (the one it listens at, or WithPublicURL's;
//     never the Host header, which a rebound DNS name or a proxy sets to
//     the foreign page's host); 403 otherwise. It is never framed
//     (X-Frame-Options: DENY, frame-ancestors 'none'). Otherwise any page
//     the payer visits could approve a payment in their name.
//   - The control plane and the dashboard act only within the project
//     whose private key authorised the request: another project's
//     transactions and callbacks are unknown (40402, 40400), faults hit
//     that project's calls only, callback-url and reset change that
//     project only. The clock is the server's, shared by its projects:
//     only the key of the server's own project (WithProject) moves it
//     (40300 otherwise); any key reads it. A sandbox shared by teams must
//     not let one drive, or wipe, another's tests.
//   - Key guesses are slow, and the key's holder is never locked out by
//     them. A wrong key on the dashboard's key form or a login link, a
//     wrong bearer key or session cookie on the control plane, and a wrong
//     signature on /v1 (40301: a guess of the private key) are counted per
//     client address (20 at once, then 2 a second; an IPv6 address by its
//     /64): past that, every attempt from the address, the right key
//     included, is 42900 (HTTP 429) with Retry-After, the key not looked
//     at, and each one made while waiting makes the wait longer (up to
//     10.5 seconds). Guesses are also counted in all (100 at once, then
//     20 a second): past that, a key is still looked at, so the right one
//     gets in whoever else guesses, but the answer to a wrong one is held
//     until the shared budget has room for it (up to 5.05 seconds), which
//     with the bounded connections caps how fast many addresses together
//     learn anything. A valid dashboard session is no guess and is never
//     refused. The limiter remembers at most 10,000 addresses; one that
//     finds no room counts in the shared budget only. Forwarding headers
//     are not trusted, so clients behind one proxy share a budget. A
//     global budget that refused every key once spent would let anyone
//     lock the developer out of their own sandbox.
//   - A dashboard sign-in sets a cookie (HttpOnly, SameSite=Strict, Path
//     /sandbox/, Secure over TLS) holding a random session id and an HMAC
//     of it and the project under a secret the server draws at start:
//     never the key, and useless on another server. Each sign-in starts a
//     new session and ends the project's previous one; a session lasts 12
//     hours, and so does its cookie (Max-Age). The dashboard's forms carry a token bound to the session, a
//     request whose Origin or Referer is another host than the confirm
//     page's own is refused, and its
//     pages are never framed.
//   - payout-parameters for CREDIT_CARD takes the card's 6-digit BIN, as
//     the spec describes, because the parameters depend on it; SEPA
//     payouts are in EUR only (42201), to model a project's configuration.
//
// # Decisions where the gateway's documentation is silent
//
//   - A parameter that is missing or malformed and has no code of its own
//     (price, currency, description, amount, order_id over 64 characters,
//     list filters, payout parameters) is 40014, the message naming it.
//   - 40000 "malformed request" (HTTP 400) answers a body that cannot be
//     read. An unknown path, and an extended-only method
//     (transaction/create, payout, balance, transactions) asked of a
//     basic-form project, is 40400 "method not found" with HTTP 404.
//     payout-types and payout-parameters answer in both forms, as the spec
//     does not take them from the basic form.
//   - Currencies are read in either letter case and answered in upper
//     case.
//   - GET transactions: page counts from 1 (0, a negative or unreadable
//     page is the first; one beyond any int is past the end), limit
//     defaults to 20. Time filters are inclusive and read RFC 3339, the
//     ISO 8601 forms the SDK decodes (+03:00, +0300, Z, with or without
//     fraction, the compact 20150522T11:21:37+03:00, 2006-01-02
//     15:04:05), a date alone (midnight UTC) and Unix seconds, in at most
//     64 bytes (a longer value is 40014, as a value that is no time).
//   - user/changeRecurring and user/cancelRecurring for a user without a
//     subscription succeed: there is nothing to change.
//   - Transaction ids are 19 digits from 1000000000000000001, user ids from
//     1, per server. The fee is 2.9% of the price to four decimals; payouts
//     and verifications have none.
//   - JSONP answers (card/getToken with callback) always have HTTP 200, so
//     that a browser runs the callback with an error object too.
//   - Events: a chargeback takes what reversals left of the payment, and
//     no reversal follows it; a penalty is PenaltyAmount in the currency of
//     the chargeback or refund it fines, once. The sandbox keeps no rolling
//     reserve, so both leave the available amount, which may go below zero.
//     A cancelled or abandoned payment gets no callback: the Events table
//     has no status for it. An event that does not apply is 40900 (HTTP
//     409); the control plane answers 40300 without the key, 40400 for no
//     such operation, 40500 for another HTTP method, 41300 for a body
//     over its bound and 42900 to a client out of key guesses, as /v1
//     does (HTTP 429, Retry-After) to a client out of guesses of the
//     signature: the gateway's documentation has no such limit, and the
//     SDK reads 42900 as it reads an injected FaultStatus429.
package paygatetest
