// Code blocks stay inert text (<script type="text/x-dynalens">) until their <details> opens:
// a run with hundreds of compiles then opens as fast as a small one.
(function () {
  "use strict";
  // Larger texts (a huge generated kernel file) stay uncoloured but linked: colouring them
  // would hold the page up for a noticeable time when the block is opened.
  var COLOUR_LIMIT = 400000;
  function escapeText(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  // Colour the Python in `el` (text and <a class="xref"> links, as the writer left it) with
  // Prism's tokens, keeping each link where it was: the links are cut out by character offset
  // and spliced back into the tokens' text. Without Prism (or on any error) `el` is left as
  // it was, plain and linked.
  function colour(el) {
    var P = window.Prism;
    if (el.dataset.coloured || !P || !P.languages || !P.languages.python || !P.tokenize) return;
    el.dataset.coloured = "1";
    var text = el.textContent;
    if (!text || text.length > COLOUR_LIMIT) return;
    var links = [], pos = 0;
    for (var n = el.firstChild; n; n = n.nextSibling) {
      var len = n.textContent.length;
      if (n.nodeType === 1 && n.tagName === "A") {
        var target = n.getAttribute("data-target") || "";
        links.push({ start: pos, end: pos + len,
                     open: '<a class="xref" href="#' + escapeText(target) + '" data-target="' +
                           escapeText(target) + '">' });
      }
      pos += len;
    }
    var out = [], st = { pos: 0, k: 0 };
    function plain(s) {
      var from = 0;
      while (from < s.length) {
        var a = links[st.k];
        if (!a || a.start >= st.pos + s.length) { out.push(escapeText(s.slice(from))); break; }
        if (a.start > st.pos + from) {
          out.push(escapeText(s.slice(from, a.start - st.pos)));
          from = a.start - st.pos;
          continue;
        }
        var to = Math.min(s.length, a.end - st.pos);
        out.push(a.open + escapeText(s.slice(from, to)) + "</a>");
        from = to;
        if (st.pos + to >= a.end) st.k++;
      }
      st.pos += s.length;
    }
    function emit(t) {
      if (typeof t === "string") { plain(t); return; }
      if (Array.isArray(t)) { for (var i = 0; i < t.length; i++) emit(t[i]); return; }
      var alias = t.alias ? " " + (Array.isArray(t.alias) ? t.alias.join(" ") : t.alias) : "";
      out.push('<span class="token ' + t.type + alias + '">');
      emit(t.content);
      out.push("</span>");
    }
    try {
      emit(P.tokenize(text, P.languages.python));
    } catch (err) {
      return;   // leave the plain, linked text
    }
    el.innerHTML = out.join("");
  }
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
    if (src.dataset.lang === "python") colour(pre);
    else pre.querySelectorAll(".py").forEach(colour);
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
  // The lines shown unfolded (graph breaks, call stacks) are coloured after the page is up, a
  // batch at a time, so that a run with thousands of them opens as fast as before.
  var snippets = Array.prototype.slice.call(document.querySelectorAll("main .py"));
  (function colourSome(start) {
    var end = Math.min(snippets.length, start + 200);
    for (var i = start; i < end; i++) colour(snippets[i]);
    if (end < snippets.length) setTimeout(function () { colourSome(end); }, 0);
  })(0);
})();
