package paygatetest

// ControlPlaneHelp describes every operation of the control plane under
// {URL}/sandbox/, for a command's help (paygate help sandbox) and for
// people: the package documentation says the same in its section "The
// control plane".
const ControlPlaneHelp = `The sandbox's control plane, under {URL}/sandbox/.

Every request carries "Authorization: Bearer <private key>" of one of the
sandbox's projects and acts within that project only. Input is a query, a
form or a JSON object; output is JSON; an error is the gateway's error
object {"error":{"code":N,"message":"..."}}, whose first three digits are
the HTTP status. Every id in an answer is a JSON string, as
"1000000000000000001": 19 digits are more than a JavaScript number holds.

  GET  /sandbox/clock
      The sandbox's time: {"now":"<RFC 3339>"}.
  POST /sandbox/clock                        advance=<Go duration, e.g. 36h>
      Moves the clock forward (at most 10 years) and runs what became due:
      token expiry, settlement, automatic recurring charges, callback
      retries. Only the server's own project moves it (40300 otherwise).
  GET  /sandbox/transactions                 status, type, order_id, from, to,
                                             per_page, page | cursor
      The project's transactions, newest first, as GET transactions/{id}
      shows each: {"transactions":[...],"total":N,"page":P,"per_page":N,
      "next_cursor":"<id>"}. from/to bound the creation time (inclusive;
      RFC 3339, a date or Unix seconds). per_page is 100 unless given, at
      most 1000; page counts from 1; cursor is the next_cursor of the
      previous page (next_cursor is absent on the last page).
  POST /sandbox/transactions/{id}/{event}
      Applies an event: chargeback, retrieval, penalty, approve, decline,
      abandon, complete, fail, cancel, waiting_approval. Answers the by-id
      JSON of the transaction the event made (or of the transaction). An
      unknown event is 40400, one that does not apply now 40900; both
      messages list the events that apply to the transaction now.
  POST /sandbox/faults                       method=<API path>, fault=<kind>, count=<n>
      The project's next n calls of the method suffer the fault:
      reset-after-commit, timeout-after-commit, status-500, status-503,
      status-429, html-502.
  GET  /sandbox/deliveries                   per_page, page | cursor
      The project's callbacks, oldest first, a JSON array: id (a string), url, fields,
      attempts (time, status or error, manual), delivered, done and
      next_attempt (when the retry schedule sends it next; absent when
      none is due). per_page is 100 unless given, at most 1000; cursor is
      the id of the last delivery of the previous page.
  POST /sandbox/deliveries/{id}/redeliver
      Sends the callback again and answers it after that attempt (or as it
      stands when the attempt takes over 5 seconds). 40400 for an unknown
      callback, 40900 when it has no URL.
  POST /sandbox/fixtures                     a JSON fixture file as the body (at most 1 MiB)
      Makes a scenario in the project: users, remembered cards, payments
      in given states, subscriptions, payouts, then steps (events, refunds,
      clock moves, settlement). Answers the ids made, by the fixture's
      names: {"users":{...},"transactions":{...},"cards":{...}}. 40000 for
      a body that is no fixture file, 40900 naming the first entry the
      sandbox refused (the entries before it stay made).
  POST /sandbox/login-url
      A link that opens the project's dashboard in a browser once, within
      5 minutes, without the key: {"url":"...","expires_in":300}.
  GET  /sandbox/callback-url
      Where the project's callbacks go: {"url":"..."}, empty when they are
      recorded only.
  POST /sandbox/callback-url                 url=<absolute http(s) URL, or empty>
      Changes where the project's later callbacks go; answers
      {"url":"...","previous":"..."}.
  POST /sandbox/reset
      The project forgets its users, tokens, transactions and faults.
  GET  /sandbox/
      The dashboard, in a browser, after a sign-in with the key.

The fixture format is in paygatetest's package doc (section "Fixtures");
paygatetest/testdata/fixtures/example.json shows every kind of entry.

Errors: 40000 malformed input, 40300 no or wrong key, 40400 no such
operation or object, 40500 another HTTP method, 40900 an event that does
not apply, 41300 a body over 64 KiB, 42900 too many wrong keys from this
address (wait Retry-After seconds; others' wrong keys never refuse yours).
`
