// A test of the sandbox's control plane from JavaScript, with Node's
// built-in fetch only, as a merchant's service or a browser test written
// in JavaScript would drive it: it lists the transactions, then charges
// one back by the id it read.
//
// It also reads an answer of the API (/v1), whose ids are JSON numbers as
// the gateway's are, both ways docs/testing.md shows ("Ids outside Go").
//
// Run by TestControlPlane_FromNode with PAYGATE_SANDBOX_URL,
// PAYGATE_SECRET, FIXTURES (a fixture file), V1_ANSWER (the body of a
// GET /v1/transactions/{id}) and V1_ID (its id) in the environment. It exits
// 0 when every check passes, and 1 with the failed check otherwise.
import { readFile } from "node:fs/promises";

const base = process.env.PAYGATE_SANDBOX_URL.replace(/\/$/, "");
const key = process.env.PAYGATE_SECRET;

// call makes one control-plane request and answers [HTTP status, the
// answer as JSON.parse reads it].
async function call(method, path, body) {
  const headers = { Authorization: "Bearer " + key };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(base + "/sandbox/" + path, { method, headers, body });
  return [res.status, JSON.parse(await res.text())];
}

function check(cond, what) {
  if (!cond) {
    console.error("FAILED: " + what);
    process.exit(1);
  }
}

const show = (v) => JSON.stringify(v);

const [status, ids] = await call("POST", "fixtures", await readFile(process.env.FIXTURES));
check(status === 200, `POST /sandbox/fixtures answered ${status}: ${show(ids)}`);

// The payment of order-1, found by listing, as a test that did not make it
// would find it.
const [listed, page] = await call("GET", "transactions?order_id=order-1");
check(listed === 200 && page.transactions.length === 1, `GET /sandbox/transactions?order_id=order-1: ${show(page)}`);
const payment = page.transactions[0];

const [charged, chargeback] = await call("POST", `transactions/${payment.id}/chargeback`);
check(charged === 200, `charging back ${payment.id} as listed answered ${charged}: ${show(chargeback)}`);
check(typeof payment.id === "string", `the listed id is a string, not ${typeof payment.id} ${payment.id}`);
check(payment.id === ids.transactions.paid, `the listed id ${payment.id} is the fixtures' ${ids.transactions.paid}`);
check(chargeback.type === "chargeback" && chargeback.referenceId === payment.id,
  `the chargeback's parent is the payment: ${show(chargeback)}`);
check(typeof chargeback.id === "string", `the chargeback's id is a string: ${show(chargeback)}`);

const [, all] = await call("GET", "transactions?per_page=1000");
check(all.transactions.every((t) => typeof t.id === "string" && (t.referenceId === null || typeof t.referenceId === "string")),
  "every listed id and referenceId is a string");
check(new Set(all.transactions.map((t) => t.id)).size === all.total, "no two listed ids read alike");

// A /v1 answer: JSON.parse alone rounds its id; the two ways of
// docs/testing.md keep every digit.
const v1 = process.env.V1_ANSWER;
check(String(JSON.parse(v1).id) !== process.env.V1_ID, "JSON.parse alone rounds a 19-digit /v1 id");
const quoted = JSON.parse(v1.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
check(quoted.id === process.env.V1_ID, `quoting long integers keeps the /v1 id: ${quoted.id}`);
if (JSON.parse("1", (k, v, context) => context)?.source === "1") { // Node 21 and later
  const revived = JSON.parse(v1, (key, value, context) =>
    Number.isInteger(value) && !Number.isSafeInteger(value) ? context.source : value);
  check(revived.id === process.env.V1_ID, `a reviver with context.source keeps the /v1 id: ${revived.id}`);
}

console.log(`control plane from Node: ${all.total} transactions, chargeback ${chargeback.id} of ${payment.id}`);
