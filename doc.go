// Package paygate is a client for the Payment Gateway API: charge cards
// (with 3-D Secure), remember cards, run recurring payments, reverse
// payments, start wallet payments, create payouts, read balances and
// transactions, and confirm the gateway's signed callbacks against its
// records. Receiving callbacks (verifying, parsing, an http.Handler that
// runs each one once) is package github.com/paygate/paygate-go/callback,
// which does not import this one; [Client.ConfirmCallback] takes its
// callbacks, and their ids are this package's [ID].
//
// # Where to start
//
// Read the repository's docs/getting-started.md: a first charge and a
// verified callback on the sandbox in ten minutes. The other guides in
// docs/ follow a merchant's journeys (3-D Secure, recurring, refunds and
// disputes, payouts, webhooks, reliability, testing, going live,
// troubleshooting) and link here for the reference.
//
// Create one [Client] per project with [NewClient] and reuse it; it is safe
// for concurrent use. Every call takes a [context.Context] first and is
// grouped by resource:
//
//	client, err := paygate.NewClient(projectKey, privateKey,
//		paygate.WithBaseURL("https://gateway.example.com"))
//	...
//	payment, err := client.Cards.Charge(ctx, &paygate.ChargeParams{...})
//
// # Callbacks
//
// The gateway POSTs a signed callback to the project's callback URL on
// every status change. [callback.NewHandler] returns the http.Handler for
// that URL: it verifies the signature, answers the gateway as it expects,
// passes each callback to your [callback.Func] once however often it is
// delivered ([callback.WithStore] shares that across replicas; the Redis and
// PostgreSQL stores are the modules dedup/redisdedup and dedup/pgdedup),
// and marks a callback overtaken by a later status [Callback.Stale]. The
// signature covers values, not field names, so confirm each callback
// against the gateway's record with [Client.ConfirmCallback] before acting
// on it. [callback.NewVerifier] verifies and parses without the handler.
//
// # Unknown outcomes
//
// A charge, payout or reversal that may have reached the gateway without a
// usable answer is never sent again by the SDK: its error matches
// [ErrOutcomeUnknown] and is an [*OutcomeUnknownError] carrying the order
// id and the kind of request. [TransactionsService.Settle] (with the
// error's SettleParams) looks the request's trace up and says what
// happened; [TransactionsService.Reconcile] is Settle for a charge.
// [OrderState] merges what the calls, callbacks and look-ups report so
// that an order never moves backwards.
//
// # Testing
//
// Package github.com/paygate/paygate-go/paygatetest is a stateful sandbox
// of the gateway, used like net/http/httptest: test cards, 3-D Secure,
// signed callbacks, disputes, faults on demand and a clock under the
// test's control, in Go or, through cmd/paygate-sandbox, from any
// language.
//
// # Money and ids
//
// Amounts are [decimal.Decimal] values (github.com/shopspring/decimal),
// never floats; they are sent with the fraction digits they were given.
// Amounts in answers are exact too, but a decimal prints without trailing
// zeros (a price of 24.90 as 24.9 with %s, %v and JSON): print money with
// StringFixed(2), or the currency's number of minor units.
// Transaction ids are [ID] values: 64-bit integers that stay exact whether
// the gateway sends them as JSON numbers or strings.
//
// # Reading answers
//
// Answers are read as the production gateway writes them, not only as the
// spec's tables show them: snake or camel case names, numbers as strings,
// times in any ISO 8601 form or as Unix seconds, and presence rather than
// zero value deciding whether a field is there. Only the fields that decide
// what happened can fail a call; any other field that cannot be read is
// left zero, logged at warn level and listed as a [DecodeWarning] in the
// result's Warnings (or through [WithDecodeWarnings]).
//
// # Errors
//
// Gateway errors are [*Error] values carrying the gateway's five-digit code;
// match them with errors.Is and the sentinels ([ErrCardTokenUsed], ...).
// Input that breaks a rule the spec states is refused before anything is
// sent, with a [*ValidationError] naming the parameter. A payment, payout or reversal
// that may have reached the gateway without a usable answer is never sent
// again by the SDK: its error matches [ErrOutcomeUnknown] and carries the
// order id to look the outcome up with.
//
// # Signing
//
// Requests are signed as the gateway requires: the values of every sent
// parameter, sorted as byte strings, joined with "|", HMAC-SHA256 with the
// project's private key in lowercase hex. [Sign] and [VerifySignature]
// expose the scheme. The private key, card numbers and security codes never
// appear in logs, errors or formatted output.
//
// # Basic and extended form
//
// The gateway offers a basic and an extended form of its interface. The
// client speaks the extended form unless [WithForm]([FormBasic]) is given;
// calls the basic form lacks then fail locally with [ErrBasicForm].
package paygate
