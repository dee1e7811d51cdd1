/* Every <time data-local-time> printed by the server in UTC words is shown again in the
   reader's own time zone (the server cannot know it), in the same words:
   "Fri 11 Dec 2026, 17:38 GMT+9". The UTC words stay in the title. Runs again after
   htmx swaps content in. */
(function () {
  "use strict";
  var format;
  try {
    format = new Intl.DateTimeFormat("en-GB", {
      weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", hour12: false, timeZoneName: "short"
    });
  } catch (e) {
    return;
  }

  function words(date) {
    var p = {};
    format.formatToParts(date).forEach(function (part) { p[part.type] = part.value; });
    return p.weekday + " " + p.day + " " + p.month + " " + p.year + ", " + p.hour + ":" +
      p.minute + " " + p.timeZoneName;
  }

  function localise(root) {
    var nodes = (root || document).querySelectorAll("time[data-local-time]");
    Array.prototype.forEach.call(nodes, function (node) {
      var date = new Date(node.getAttribute("datetime"));
      if (isNaN(date.getTime()) || node.hasAttribute("data-localised")) { return; }
      node.title = node.textContent;
      node.textContent = words(date);
      node.setAttribute("data-localised", "");
    });
  }

  document.addEventListener("DOMContentLoaded", function () { localise(document); });
  document.addEventListener("htmx:afterSwap", function (event) { localise(event.target); });
})();
