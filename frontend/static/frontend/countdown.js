// The exam countdown (frontend/take/_scripts.html): reads the deadline and the server's
// clock from #countdown's data attributes, ticks every second, warns at 5 and 1 minutes
// left, saves the answer being typed just before the end and reloads once time is up.
// A file, not an inline script, so the content security policy can refuse inline ones.
(function () {
  var el = document.getElementById("countdown");
  if (!el) return;
  var end = Date.parse(el.dataset.deadline), skew = Date.parse(el.dataset.now) - Date.now(), saved = false;
  var warning = document.getElementById("countdown-warning"), warned = {};
  function tick() {
    var left = Math.max(0, Math.round((end - Date.now() - skew) / 1000));
    var m = Math.floor(left / 60), s = left % 60;
    el.textContent = m + ":" + (s < 10 ? "0" : "") + s;
    [5, 1].forEach(function (mins) {  // said once each, when that much time is left
      if (warning && left <= mins * 60 && left > 0 && !warned[mins]) {
        warned[mins] = true;
        if (left > mins * 60 - 5) warning.textContent = mins + (mins === 1 ? " minute" : " minutes") + " left.";
      }
    });
    if (left <= 3 && !saved && document.activeElement && document.activeElement.form) {
      saved = true; document.activeElement.blur();  // the change event saves the last answer
    }
    if (left <= 0) {
      clearInterval(timer); el.textContent = "time is up";
      setTimeout(function () { window.location.reload(); }, 1500);
    }
  }
  var timer = setInterval(tick, 1000); tick();
})();
