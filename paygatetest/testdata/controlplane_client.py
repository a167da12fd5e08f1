"""A test of the sandbox's control plane from Python, with the standard
library only, as a merchant's service written in Python would drive it.

Run by TestControlPlane_FromPython with PAYGATE_SANDBOX_URL,
PAYGATE_SECRET and FIXTURES (a fixture file) in the environment. It exits
0 when every check passes, and 1 with the failed check otherwise.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ["PAYGATE_SANDBOX_URL"].rstrip("/")
KEY = os.environ["PAYGATE_SECRET"]


def call(method, path, body=None, query=None):
    """One control-plane request: (HTTP status, decoded JSON answer)."""
    url = BASE + "/sandbox/" + path
    if query:
        url += "?" + urllib.parse.urlencode(query)
    data = None
    headers = {"Authorization": "Bearer " + KEY}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def check(cond, what):
    if not cond:
        print("FAILED: " + what, file=sys.stderr)
        sys.exit(1)


with open(os.environ["FIXTURES"], "rb") as f:
    status, ids = call("POST", "fixtures", f.read())
check(status == 200, "POST /sandbox/fixtures answered %d: %s" % (status, ids))
for name in ("paid", "declined", "disputed", "chargeback", "payout"):
    check(name in ids["transactions"], "the fixtures' answer names " + name)
check("alice-visa" in ids["cards"], "the remembered card has its token")

status, clock = call("GET", "clock")
check(status == 200 and clock["now"].startswith("2026-03-01T13:00:00"),
      "GET /sandbox/clock is an hour after the start: %s" % clock)

# Every transaction once, newest first, two a page, walking the cursor.
seen, query = [], {"per_page": "2"}
while True:
    status, page = call("GET", "transactions", query=query)
    check(status == 200, "GET /sandbox/transactions answered %d: %s" % (status, page))
    check(len(page["transactions"]) <= 2, "a page holds per_page transactions")
    seen += [t["id"] for t in page["transactions"]]
    if "next_cursor" not in page:
        break
    query = {"per_page": "2", "cursor": page["next_cursor"]}
check(all(isinstance(i, str) for i in seen), "the control plane's ids are JSON strings: %s" % seen)
check(len(seen) == page["total"] and len(set(seen)) == len(seen), "the cursor walks each transaction once")
check(seen == sorted(seen, key=int, reverse=True), "newest first")
check(ids["transactions"]["paid"] in seen, "the paid payment is listed")

status, failed = call("GET", "transactions", query={"status": "failed"})
check([t["id"] for t in failed["transactions"]] == [ids["transactions"]["declined"]],
      "the status filter: %s" % failed)
status, order = call("GET", "transactions", query={"order_id": "order-4"})
check({t["type"] for t in order["transactions"]} == {"payment", "chargeback"},
      "the order id filter finds the payment and its chargeback: %s" % order)

status, err = call("POST", "transactions/%s/approve" % ids["transactions"]["chargeback"], {})
check(status == 409 and err["error"]["message"].endswith("events that apply to this transaction now: retrieval, penalty"),
      "approving a chargeback is 409 listing the events that apply: %s" % err)

status, moved = call("POST", "clock", {"advance": "24h"})
check(status == 200 and moved["now"].startswith("2026-03-02T13:00:00"), "POST /sandbox/clock: %s" % moved)

print("control plane from Python: %d transactions, clock %s" % (len(seen), moved["now"]))
