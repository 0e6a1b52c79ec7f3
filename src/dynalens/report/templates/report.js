// Code blocks stay inert text (<script type="text/x-dynalens">) until their <details> opens:
// a run with hundreds of compiles then opens as fast as a small one.
(function () {
  "use strict";
  function fill(d) {
    if (d.dataset.filled) return;
    d.dataset.filled = "1";
    var src = document.getElementById("src-" + d.id);
    var body = d.querySelector(":scope > .body");
    if (!src || !body) return;
    var pre = document.createElement("pre");
    pre.className = "hl";
    pre.innerHTML = src.textContent;
    body.appendChild(pre);
  }
  function openChain(el) {
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") {
        if (p.classList.contains("code")) fill(p);
        p.open = true;
      }
    }
  }
  function reveal(id) {
    var el = id && document.getElementById(id);
    if (!el) return false;
    openChain(el);
    if (el.classList.contains("graph")) {
      // A link to a graph shows its first stage rather than a row of closed boxes.
      var first = el.querySelector("details.code");
      if (first) openChain(first);
    }
    el.scrollIntoView({ block: "start" });
    el.classList.remove("flash");
    void el.offsetWidth;
    el.classList.add("flash");
    return true;
  }
  // "toggle" does not bubble, so listen in the capture phase once for the whole page.
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.tagName === "DETAILS" && d.open && d.classList.contains("code")) fill(d);
  }, true);
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a) return;
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    if (reveal(id)) {
      e.preventDefault();
      // Keep the back button useful; inside a notebook's srcdoc frame this may be refused.
      try { history.pushState(null, "", "#" + id); } catch (err) { /* not needed to navigate */ }
    }
  });
  window.addEventListener("hashchange", function () {
    reveal(decodeURIComponent(location.hash.slice(1)));
  });
  var filter = document.getElementById("filter");
  if (filter) filter.addEventListener("input", function () {
    var q = filter.value.trim().toLowerCase();
    document.querySelectorAll("[data-name]").forEach(function (el) {
      el.classList.toggle("hidden", q !== "" && el.dataset.name.indexOf(q) < 0);
    });
  });
  var collapse = document.getElementById("collapse");
  if (collapse) collapse.addEventListener("click", function () {
    document.querySelectorAll("details[open]").forEach(function (d) {
      if (d.classList.contains("code")) d.open = false;
    });
  });
  document.querySelectorAll("details.code[data-open]").forEach(function (d) { fill(d); d.open = true; });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
})();
