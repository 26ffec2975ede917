// Live updates: when memories change on disk the server sends a "change"
// event; the page's content is fetched again and swapped in place.
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
        cur.replaceWith(next);
        document.body.setAttribute("data-refreshed", String(Date.now()));
      }
    }).catch(function () { /* keep the page as it is */ }).finally(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }
  var es = new EventSource("/events");
  es.addEventListener("open", function () { if (live) { live.className = "live on"; } });
  es.addEventListener("error", function () { if (live) { live.className = "live"; } });
  es.addEventListener("change", refresh);
})();
