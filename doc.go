// Package paygate is a client for the Payment Gateway API: charge cards
// (with 3-D Secure), remember cards, run recurring payments, reverse
// payments, start wallet payments, create payouts, read balances and
// transactions, and confirm the gateway's signed callbacks against its
// records. Receiving callbacks (verifying, parsing, an http.Handler that
// runs each one once) is package github.com/paygate/paygate-go/callback,
// which does not import this one; [Client.ConfirmCallback] takes its
// callbacks, and their ids are this package's [ID].
//
// Create one [Client] per project and reuse it; it is safe for concurrent
// use. Every call takes a [context.Context] first and is grouped by resource:
//
//	client, err := paygate.NewClient(projectKey, privateKey,
//		paygate.WithBaseURL("https://gateway.example.com"))
//	...
//	payment, err := client.Cards.Charge(ctx, &paygate.ChargeParams{...})
//
// # Money and ids
//
// Amounts are [decimal.Decimal] values (github.com/shopspring/decimal),
// never floats; they are sent with the fraction digits they were given.
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
