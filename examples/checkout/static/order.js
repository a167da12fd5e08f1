// order.js reloads the order page when the order changes (a callback
// arrived): often while the payment is under way, less often once it
// settled, when only a refund or a dispute may follow.
(function () {
  "use strict";
  var el = document.getElementById("order");
  if (!el) return;
  var every = el.getAttribute("data-final") === "true" ? 3000 : 1000;
  var id = el.getAttribute("data-order");
  var seen = el.getAttribute("data-events");
  function poll() {
    fetch("/orders/" + encodeURIComponent(id) + "/status", { cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        if (String(s.events) !== seen) return location.reload();
        setTimeout(poll, every);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, every);
})();
