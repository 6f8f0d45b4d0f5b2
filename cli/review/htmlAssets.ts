/**
 * review.html's style and its one script, inline in the page (html.ts): the page loads nothing,
 * so it opens the same from a file, a mail attachment or an archive. The script reads the packet's
 * rows from the page's JSON block and draws them a page at a time (PAGE rows), so the DOM stays
 * the same size at 28,000 people as at 20; it never sets markup from data (textContent only), so
 * a name cannot become markup. It also takes the reviewer's decisions (htmlDecide.ts, issue 55):
 * per line and per person, kept in local storage under the packet's hash, saved as a sign-off
 * file through a Blob's object URL (a download: nothing leaves the page, and the CSP needs no
 * change). Plain ES2017 in a string: it runs in the reviewer's browser, not in Node.
 */
import { DECIDE_SCRIPT, SIGNOFF_CSV_JS } from "./htmlDecide";

/** The page's style. */
export const PAGE_STYLE = `
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--ink); margin: 0 auto; padding: 1em 1.5em 4em; max-width: 100em; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.3em; border-bottom: 1px solid var(--line); padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--head); padding: 0 0.2em; }
.muted, .needs-script { color: var(--muted); }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line); padding: 0.4em 0; z-index: 3; }
header p { margin: 0.2em 0; }
#filter { font: inherit; width: min(32em, 90%); padding: 0.25em 0.5em; }
#filter-note { color: var(--muted); margin-left: 0.5em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid var(--line); padding: 0.2em 0.45em; text-align: left; vertical-align: top; white-space: pre-line; }
th { background: var(--head); }
td.n { text-align: right; }
.pager { margin: 0.4em 0; display: flex; gap: 0.8em; align-items: center; }
.pager span { color: var(--muted); }
.rows td:nth-last-child(-n + 4) { min-width: 6em; }
.legend span { display: inline-flex; align-items: center; gap: 0.3em; margin-right: 1.2em; }
.heat { margin: 0.5em 0; overflow-x: auto; }
.heat summary, .heat .head { display: grid; grid-template-columns: minmax(14em, 24em) repeat(var(--n), 5.5em); cursor: pointer; }
.heat .head { cursor: default; font-weight: 600; background: var(--head); position: sticky; top: 0; }
.heat summary > span, .heat .head > span { border: 1px solid #fff; padding: 0.1em 0.35em; text-align: right; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.heat summary > span.where, .heat .head > span.where { text-align: left; }
/* Headers such as ORG_ADMIN or external-escalated-privileged stay whole: written upwards, never broken inside a word. */
.heat .head > span:not(.where) { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; overflow-wrap: normal; word-break: keep-all; text-align: left; font-size: 0.85em; overflow: visible; text-overflow: clip; padding: 0.3em 0.1em; }
.heat summary .where::before { content: "\\25B8  "; color: var(--muted); }
.heat details[open] > summary .where::before { content: "\\25BE  "; }
.heat details > .detail { padding: 0.2em 0 0.8em 1.5em; }
.h0 { background: #fafbfc; color: #8c959f; }
.h1 { background: #deebf7; }
.h2 { background: #9ecae1; }
.h3 { background: #4292c6; color: #fff; }
.h4 { background: #08519c; color: #fff; }
.matrix-box { overflow-x: auto; }
.grid { display: inline-grid; grid-auto-rows: 16px; font-size: 12px; line-height: 16px; background-image: linear-gradient(to right, #eaeef2 1px, transparent 1px); background-size: 16px 100%; }
.grid .corner, .grid .who { grid-column: 1; background: #fff; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding-right: 0.5em; position: sticky; left: 0; z-index: 1; }
.grid .col { grid-row: 1; writing-mode: vertical-rl; transform: rotate(180deg); font-size: 12px; line-height: 16px; color: var(--muted); white-space: nowrap; }
.grid .corner { grid-row: 1; align-self: end; font-weight: 600; }
.grid i { display: block; margin: 1px; border-radius: 2px; }
.k-admin { background: #b2182b; }
.k-write { background: #ef8a62; }
.k-use { background: #4393c3; }
.k-none { background: #bababa; }
.k-invited { background: repeating-linear-gradient(45deg, #b2182b 0 2px, #fff 2px 4px); }
.k-expired { background: repeating-linear-gradient(45deg, #999 0 2px, #fff 2px 4px); }
.k-suspended { background: repeating-linear-gradient(45deg, #222 0 2px, #fff 2px 4px); }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 2px; }
#decide { background: #fffbea; border: 1px solid #e3d48a; padding: 0.2em 1em 0.6em; margin-top: 1.5em; }
#decide h2 { margin-top: 0.6em; }
#reviewer { font: inherit; width: min(30em, 90%); }
#save-note.refused { color: #b2182b; font-weight: 600; }
.rows select, .rows input { font: inherit; font-size: 0.95em; }
.rows input.why { width: 16em; }
.rows input.perms { width: 14em; display: block; margin-top: 0.2em; }
.rows tr.decided td:first-child { box-shadow: inset 4px 0 #1a7f37; }
.rows .by-person { display: block; color: var(--muted); font-size: 0.9em; }
.rows button.decide { font: inherit; font-size: 0.9em; }
@media print { header { position: static; } .pager button, #filter { display: none; } }
`;

/**
 * The page's script. Reads #review-data (strings, kinds, headers, per organization its people,
 * lines, columns, attention and changes), draws every .view (a paged table), .matrix (the people
 * x databases grid, paged) and, when opened, each database's people in the heat map's <details>;
 * the filter box (and #filter=TEXT in the address) keeps the people whose email, name, flags,
 * reasons or access hold the text.
 */
export const PAGE_SCRIPT = `
(function () {
  "use strict";
  var PAGE = 500;
  // The matrix's kinds of a line that hold a permission.
  var HOLDS = ["admin", "write", "use", "suspended"];
  var input = document.getElementById("filter");
  var note = document.getElementById("filter-note");
  var views = [];
  var needle = "";
  var timer = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function fmt(n) {
    return n.toLocaleString("en-US");
  }
  function hit(hay) {
    return !needle || hay.indexOf(needle) >= 0;
  }

  // A list drawn PAGE rows at a time: rows() is what the filter keeps, draw(box, slice) draws one page.
  function paged(host, rows, draw) {
    var pager = el("div", "pager");
    var prev = el("button", null, "\\u25C0 previous");
    var next = el("button", null, "next \\u25B6");
    var where = el("span", "where");
    prev.type = next.type = "button";
    pager.append(prev, where, next);
    var box = el("div", "page");
    host.replaceChildren(pager, box);
    var view = { page: 0, kept: [] };
    view.draw = function () {
      var start = view.page * PAGE;
      var shown = view.kept.slice(start, start + PAGE);
      draw(box, shown);
      where.textContent = view.kept.length
        ? "rows " + fmt(start + 1) + "\\u2013" + fmt(start + shown.length) + " of " + fmt(view.kept.length)
        : needle ? "no rows match the filter" : "no rows";
      prev.disabled = view.page === 0;
      next.disabled = start + PAGE >= view.kept.length;
    };
    view.filter = function () {
      view.kept = rows();
      view.page = 0;
      view.draw();
    };
    prev.addEventListener("click", function () { view.page--; view.draw(); });
    next.addEventListener("click", function () { view.page++; view.draw(); });
    views.push(view);
    view.filter();
  }

  // A paged table: headers, and cells(row), the texts of one row.
  function table(host, headers, rows, cells) {
    paged(host, rows, function (box, shown) {
      var t = el("table", "rows");
      var head = t.createTHead().insertRow();
      headers.forEach(function (h) { head.appendChild(el("th", null, h)); });
      var body = t.createTBody();
      shown.forEach(function (row) {
        var tr = body.insertRow();
        // A cell is a text, or a node (the decision controls, built by the script, never from markup).
        cells(row, tr).forEach(function (c) {
          var td = tr.insertCell();
          if (c && c.nodeType) td.appendChild(c);
          else td.textContent = c;
        });
      });
      box.replaceChildren(t);
    });
  }

  // The people x databases grid: one row per person, one column per place (the organization, each
  // database), a shaded cell where the person has a line of access (its words in the title).
  // People who hold a permission somewhere come first: the rest (members and invitees without
  // one) would fill the first pages of a big organization with empty rows.
  function matrix(host, org) {
    var holds = org.people.filter(function (p) { return p.holds; });
    var order = holds.concat(org.people.filter(function (p) { return !p.holds; }));
    paged(host, function () { return order.filter(function (p) { return p.hit; }); }, function (box, shown) {
      var grid = el("div", "grid");
      grid.style.gridTemplateColumns = "260px repeat(" + org.columns.length + ", 16px)";
      grid.style.gridTemplateRows = "5em";
      grid.appendChild(el("div", "corner", "person"));
      org.columns.forEach(function (c, i) {
        var h = el("div", "col", c[0]);
        h.title = c[1];
        h.style.gridColumn = String(i + 2);
        grid.appendChild(h);
      });
      shown.forEach(function (p, r) {
        var who = el("div", "who", p.label);
        who.title = p.label + (p.flags ? "\\n" + p.flags : "");
        who.style.gridRow = String(r + 2);
        grid.appendChild(who);
        p.lines.forEach(function (l) {
          var c = el("i", "k-" + l.kind);
          c.title = p.label + "\\n" + l.text;
          c.style.gridRow = String(r + 2);
          c.style.gridColumn = String(l.column + 2);
          grid.appendChild(c);
        });
      });
      box.replaceChildren(grid);
    });
  }

  function apply(text) {
    needle = text.trim().toLowerCase();
    var hits = 0;
    var total = 0;
    orgs.forEach(function (o) {
      o.people.forEach(function (p) {
        p.hit = hit(p.hay);
        if (p.hit) hits++;
      });
      total += o.people.length;
    });
    views.forEach(function (v) { v.filter(); });
    note.textContent = needle ? fmt(hits) + " of " + fmt(total) + " people match" : fmt(total) + " people";
  }

  function writeHash() {
    var text = input.value.trim();
    try {
      history.replaceState(null, "", text ? "#filter=" + encodeURIComponent(text) : location.pathname + location.search);
    } catch (e) {
      // Some viewers forbid it on a file; the filter works without it.
    }
  }

  function fromHash() {
    var m = /(?:^#|&)filter=([^&]*)/.exec(location.hash);
    var text = "";
    try {
      text = m ? decodeURIComponent(m[1].replace(/\\+/g, " ")) : "";
    } catch (e) {
      text = m ? m[1] : "";
    }
    input.value = text;
    apply(text);
  }

${DECIDE_SCRIPT}
${SIGNOFF_CSV_JS}
  var data;
  var orgs;
  try {
    data = JSON.parse(document.getElementById("review-data").textContent);
    var S = data.strings;
    orgs = data.organizations.map(function (o) {
      var people = o.people.map(function (p) {
        return { key: p[0], name: p[1], last: S[p[2]], flags: S[p[3]], why: S[p[4]], lines: [], hit: true };
      });
      var lines = o.lines.map(function (l) {
        var line = { person: people[l[0]], column: l[1], text: S[l[2]], code: S[l[3]], kind: data.kinds[l[4]], flags: S[l[5]], risk: S[l[6]], scope: S[l[7]], perms: S[l[8]], calm: l[9] === 1 };
        line.id = o.id + "|" + line.person.key + "|" + line.scope;
        line.person.lines.push(line);
        return line;
      });
      people.forEach(function (p) {
        p.org = o.id;
        p.id = o.id + "|" + p.key + "|*";
        p.access = p.lines.map(function (l) { return l.text; }).join("\\n");
        p.label = p.name ? p.name + " <" + p.key + ">" : p.key;
        p.hay = [p.key, p.name, p.flags, p.why, p.access].join("\\n").toLowerCase();
        p.holds = p.lines.some(function (l) { return HOLDS.indexOf(l.kind) >= 0; });
      });
      var since = {};
      Object.keys(o.since || {}).forEach(function (kind) {
        since[kind] = o.since[kind].map(function (c) {
          var row = [c[0], S[c[1]], S[c[2]], S[c[3]]];
          row.hay = row.join("\\n").toLowerCase();
          return row;
        });
      });
      return { id: o.id, columns: o.columns, people: people, lines: lines, attention: o.attention.map(function (i) { return people[i]; }), since: since };
    });

    setUpDecisions();
    var H = data.headers;
    document.querySelectorAll(".view").forEach(function (host) {
      var org = orgs[Number(host.dataset.org)];
      var kind = host.dataset.view;
      if (kind === "attention")
        table(host, H.attention, function () { return org.attention.filter(function (p) { return p.hit; }); }, function (p) {
          return [p.key, p.name, p.why, p.access].concat(personControls(p));
        });
      else if (kind === "lines")
        table(host, H.lines, function () { return org.lines.filter(function (l) { return l.person.hit; }); }, function (l, tr) {
          var p = l.person;
          var cells = [p.key, p.name, l.risk, l.text, p.last, l.flags];
          if (data.withCode) cells.push(l.code);
          tr.dataset.line = l.id;
          if (effective(l)) tr.className = "decided";
          return cells.concat(lineControls(l, tr));
        });
      else
        table(host, H.since, function () { return org.since[kind].filter(function (r) { return hit(r.hay); }); }, function (r) {
          return r.slice(0, 4);
        });
    });
    document.querySelectorAll(".matrix").forEach(function (host) {
      matrix(host, orgs[Number(host.dataset.org)]);
    });
    // A database's people are drawn when its row of the heat map is first opened.
    document.querySelectorAll("details.group").forEach(function (d) {
      d.addEventListener("toggle", function () {
        if (!d.open || d.dataset.drawn) return;
        d.dataset.drawn = "1";
        var org = orgs[Number(d.dataset.org)];
        var column = Number(d.dataset.column);
        table(d.querySelector(".detail"), H.detail, function () {
          return org.lines.filter(function (l) { return l.column === column && l.person.hit; });
        }, function (l) {
          return [l.person.key, l.person.name, l.text, l.flags, l.person.last];
        });
      });
    });

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { apply(input.value); writeHash(); }, 200);
    });
    input.addEventListener("change", function () {
      clearTimeout(timer);
      apply(input.value);
      writeHash();
    });
    window.addEventListener("hashchange", fromHash);
    fromHash();
    progress();
    document.documentElement.dataset.renderMs = String(Math.round(performance.now()));
    document.documentElement.dataset.ready = "1";
  } catch (e) {
    note.textContent = "This page could not draw its tables (" + e + "); review.md and review.csv hold the same.";
    document.documentElement.dataset.failed = String(e);
  }
})();
`;
