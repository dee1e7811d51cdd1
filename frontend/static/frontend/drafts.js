/* What a learner types into an answer box is kept in this browser (localStorage) until it
   is saved or checked, so a reload or a lost connection keeps it. Each box names its
   draft in data-draft (user, attempt, question, part: take/_part.html), so two people
   sharing a browser never see each other's text; signing out clears the site's storage
   (the Clear-Site-Data header of accounts.views.sign_out), so the next one finds none.

   Kept here rather than posted to the server at every pause in typing: each of those
   posts was a session write, nine of an exam's 24 page requests (bench/README.md, "The
   exam through the web pages"), and a post cannot reach the server over a lost
   connection anyway.

   - Typing (or choosing) writes the draft and says so in the question's silent status.
   - A page, or a question block htmx swaps in, shows a box's draft where it differs from
     the text the server rendered (the last answer stored), and says it is not saved yet.
   - A save or check the server accepted (a 2xx) forgets the drafts of the text it sent.
   - A finished attempt's page (data-drafts-done) forgets that attempt's drafts; any
     draft is gone after a week.
   Where storage is refused (a private window's quota, a browser blocking a framed
   site's storage), nothing is kept and the page works as before. */
(function () {
  "use strict";

  var PREFIX = "burnin-draft:";
  var WEEK_MS = 7 * 24 * 3600 * 1000;

  function store() {
    try {
      return window.localStorage;
    } catch (e) {
      return null; // storage blocked outright
    }
  }

  function read(key) {
    var s = store();
    if (!s) return null;
    try {
      var draft = JSON.parse(s.getItem(PREFIX + key));
      return draft && typeof draft.text === "string" ? draft : null;
    } catch (e) {
      return null;
    }
  }

  function write(key, text) {
    var s = store();
    if (!s) return false;
    try {
      s.setItem(PREFIX + key, JSON.stringify({ text: text, at: Date.now() }));
      return true;
    } catch (e) {
      return false; // over quota
    }
  }

  function forget(key) {
    var s = store();
    if (s) s.removeItem(PREFIX + key);
  }

  function forgetWhere(test) {
    var s = store();
    if (!s) return;
    var keys = [];
    for (var i = 0; i < s.length; i++) {
      var k = s.key(i);
      if (k && k.indexOf(PREFIX) === 0 && test(k.slice(PREFIX.length))) keys.push(k);
    }
    keys.forEach(function (k) {
      s.removeItem(k);
    });
  }

  function say(box, text) {
    var form = box.form;
    var status = form && form.querySelector("[data-draft-status]");
    if (status) status.textContent = text;
  }

  function clock() {
    return new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  // The text a box holds: a text box's value, or the checked choice of a radio group.
  function valueOf(box) {
    if (box.type !== "radio") return box.value;
    var checked = box.form && box.form.querySelector('input[name="' + box.name + '"]:checked');
    return checked ? checked.value : "";
  }

  function boxes(root) {
    return root.querySelectorAll ? root.querySelectorAll("[data-draft]") : [];
  }

  function restore(root) {
    var seen = {};
    boxes(root).forEach(function (box) {
      var key = box.getAttribute("data-draft");
      var draft = read(key);
      if (!draft || seen[key]) return;
      seen[key] = true;
      if (draft.text === valueOf(box)) return;
      if (box.type === "radio") {
        var choice = Array.prototype.find.call(box.form.elements[box.name] || [], function (r) {
          return r.value === draft.text;
        });
        if (!choice) return;
        choice.checked = true;
      } else {
        box.value = draft.text;
      }
      say(box, "Restored what you typed in this browser: not saved yet.");
    });
  }

  document.addEventListener("input", function (event) {
    var box = event.target;
    if (!box.hasAttribute || !box.hasAttribute("data-draft")) return;
    if (write(box.getAttribute("data-draft"), valueOf(box))) {
      say(box, "Draft kept in this browser at " + clock() + ".");
    }
  });

  // A save or check the server took (2xx): the drafts of the text it sent are done.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    var status = event.detail.xhr.status;
    if (!config || !config.elt || status < 200 || status >= 300) return;
    boxes(config.elt).forEach(function (box) {
      var key = box.getAttribute("data-draft");
      var draft = read(key);
      if (draft && draft.text === config.parameters[box.name]) forget(key);
    });
  });

  document.addEventListener("htmx:load", function (event) {
    restore(event.detail.elt);
  });

  function onPage() {
    var week = Date.now() - WEEK_MS;
    forgetWhere(function (key) {
      var draft = read(key);
      return !draft || !(draft.at > week);
    });
    document.querySelectorAll("[data-drafts-done]").forEach(function (el) {
      var prefix = el.getAttribute("data-drafts-done") + ":";
      forgetWhere(function (key) { return key.indexOf(prefix) === 0; });
    });
    restore(document);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onPage);
  else onPage();
})();
