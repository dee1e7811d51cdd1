/* A box that scrolls sideways (a wide table's .scroll-x wrapper, a long display formula,
   tool output in <pre>, a table that
   scrolls by itself on a phone) must be reachable from the keyboard to be scrolled with the
   arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable). Only the boxes that really
   overflow at the current width become tab stops, so a laptop's tab order stays as it
   was; a wrapper also gets a name, from its table's caption. Runs again after a resize
   and after htmx swaps content in. */
(function () {
  "use strict";
  var SELECTOR = ".scroll, .scroll-x, math[display='block'], pre, table";

  function name(box) {
    var caption = box.querySelector("caption");
    var text = caption ? caption.textContent.trim() : "";
    return text ? text + " (scrolls sideways)" : "Scrolls sideways";
  }

  function mark(box) {
    var overflows = box.scrollWidth > box.clientWidth + 1;
    var ours = box.hasAttribute("data-scroll-region");
    if (overflows && !ours && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("data-scroll-region", "");
      if (box.tagName === "DIV" && !box.hasAttribute("role")) {
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", name(box));
      }
    } else if (!overflows && ours) {
      box.removeAttribute("tabindex");
      box.removeAttribute("data-scroll-region");
      if (box.getAttribute("role") === "region") {
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
  }

  function markAll() {
    Array.prototype.forEach.call(document.querySelectorAll(SELECTOR), mark);
  }

  var pending = null;
  function later() {
    if (pending) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () { pending = null; markAll(); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", markAll);
  } else {
    markAll();
  }
  window.addEventListener("resize", later);
  document.addEventListener("htmx:afterSettle", later);
  document.addEventListener("toggle", later, true);  // a <details> opening shows new boxes
})();
