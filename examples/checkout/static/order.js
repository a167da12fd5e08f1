// order.js reloads the order page when the order changes (a callback
// arrived), until the order reaches a final status.
(function () {
  "use strict";
  var el = document.getElementById("order");
  if (!el || el.getAttribute("data-final") === "true") return;
  var id = el.getAttribute("data-order");
  var seen = el.getAttribute("data-events");
  function poll() {
    fetch("/orders/" + encodeURIComponent(id) + "/status", { cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        if (String(s.events) !== seen) return location.reload();
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 1000);
})();
