/* After an answer is checked, the question block is swapped whole (htmx outerHTML), which
   takes the focused "Check answer" button (or the box Enter was pressed in) away: focus
   fell to the body and the next Tab skipped the feedback, the hint and "Show the
   answer". The feedback of the part just checked carries data-just-checked
   (take/_feedback.html); once the swap has settled, focus moves to it, so a keyboard or
   screen-reader user lands on the verdict and the named mistake, and the next Tab
   reaches the hint and the reveal that follow it. An incident drill's step just taken, or
   its result just submitted (take/_drill.html), is marked the same way. A file, not an inline script: the
   content security policy refuses inline ones. */
(function () {
  "use strict";

  function focusChecked() {
    var feedback = document.querySelector("[data-just-checked]");
    if (!feedback) return;
    feedback.removeAttribute("data-just-checked");
    feedback.focus();
  }

  // htmx restores focus to an element of the same id after a swap; settle comes later.
  document.addEventListener("htmx:afterSettle", focusChecked);
})();
