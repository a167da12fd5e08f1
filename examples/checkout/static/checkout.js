// checkout.js exchanges the card for a one-time token in the browser:
// the card goes straight to the gateway's card/getToken by JSONP, and only
// the token is posted to the shop. The card inputs have no name attribute,
// so the form itself can never send them.
(function () {
  "use strict";
  var form = document.getElementById("checkout-form");
  if (!form) return;
  var gateway = form.getAttribute("data-gateway");
  var project = form.getAttribute("data-project");
  var errorBox = document.getElementById("card-error");
  var payButton = document.getElementById("pay-card");
  var calls = 0;

  form.addEventListener("submit", function (ev) {
    // The PayPal button posts the form to its own action; no card needed.
    if (ev.submitter && ev.submitter.id !== "pay-card") return;
    ev.preventDefault();
    var card = readCard();
    if (card.error) return showError(card.error);
    showError("");
    payButton.disabled = true;
    getToken(card, function (message, token) {
      if (message) {
        payButton.disabled = false;
        return showError(message);
      }
      document.getElementById("card-token").value = token;
      form.submit();
    });
  });

  function readCard() {
    var number = value("card-number").replace(/[\s-]/g, "");
    var cvc = value("card-cvc");
    var expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(value("card-expiry"));
    if (number === "") return { error: "Please enter your card number." };
    if (!/^\d{12,19}$/.test(number) || !luhn(number)) {
      return { error: "That card number is not valid. Please check it and try again." };
    }
    if (!expiry) return { error: "Please enter the expiry date as MM/YY." };
    var month = parseInt(expiry[1], 10);
    var year = parseInt(expiry[2], 10);
    if (year < 100) year += 2000;
    var now = new Date();
    if (month < 1 || month > 12) return { error: "The expiry month must be between 01 and 12." };
    if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
      return { error: "This card has expired." };
    }
    if (!/^\d{3,4}$/.test(cvc)) return { error: "Please enter the 3- or 4-digit security code." };
    return { number: number, month: month, year: year, cvc: cvc };
  }

  // getToken calls GET {gateway}/v1/card/getToken with a JSONP callback.
  // The gateway answers errors with HTTP 200 too, as {"error": {...}}.
  function getToken(card, done) {
    var name = "paygateToken" + Date.now() + "_" + (++calls);
    var script = document.createElement("script");
    var finished = false;
    var timer = setTimeout(function () { finish("The payment service did not answer. Please try again."); }, 15000);
    function finish(message, token) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      delete window[name];
      script.remove();
      done(message, token);
    }
    window[name] = function (resp) {
      if (resp && resp.id) return finish("", resp.id);
      finish(tokenError(resp && resp.error));
    };
    script.onerror = function () { finish("The payment service could not be reached. Please try again."); };
    script.src = gateway + "/v1/card/getToken?" + [
      "project=" + encodeURIComponent(project),
      "number=" + card.number,
      "expiration_month=" + card.month,
      "expiration_year=" + card.year,
      "security_code=" + card.cvc,
      "callback=" + name
    ].join("&");
    document.head.appendChild(script);
  }

  function tokenError(err) {
    switch (err && err.code) {
      case 40003: return "Please enter your card number.";
      case 40004: return "That card number is not valid. Please check it and try again.";
      case 40005: case 40012: case 40013: return "Please check the expiry date.";
      case 40006: case 40007: return "Please enter the 3- or 4-digit security code.";
    }
    return "Your card could not be checked. Please try again.";
  }

  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }

  function value(id) { return document.getElementById(id).value.trim(); }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = message === "";
  }
})();
