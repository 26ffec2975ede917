// Live updates: when memories change on disk the server sends a "change"
// event, and when serve's log grows a "log" event (pages that show the
// log, marked data-follow="log", follow it); the page's content is fetched
// again and swapped in place, with the sections the reader opened kept open.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!window.EventSource) { return; }
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var next = doc.getElementById("content"), cur = document.getElementById("content");
      var active = document.activeElement;
      var typing = active && cur.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT");
      if (next && cur && !typing && next.innerHTML !== cur.innerHTML) {
        var open = [];
        cur.querySelectorAll("details[open]").forEach(function (d) { open.push(path(d)); });
        cur.replaceWith(next);
        next.querySelectorAll("details").forEach(function (d) { if (open.indexOf(path(d)) >= 0) { d.open = true; } });
        document.body.setAttribute("data-refreshed", String(Date.now()));
      }
    }).catch(function () { /* keep the page as it is */ }).finally(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }
  // path names an element by where it stands under #content, so the same
  // section of the new content can be found.
  function path(el) {
    var parts = [];
    for (; el && el.id !== "content"; el = el.parentElement) {
      var i = 0;
      for (var sib = el; (sib = sib.previousElementSibling);) { i++; }
      parts.push(el.tagName + i);
    }
    return parts.join("/");
  }
  var es = new EventSource("/events");
  es.addEventListener("open", function () { if (live) { live.className = "live on"; } });
  es.addEventListener("error", function () { if (live) { live.className = "live"; } });
  es.addEventListener("change", refresh);
  if (document.body.getAttribute("data-follow") === "log") { es.addEventListener("log", refresh); }
})();
