/**
 * review.html's decisions (issue 55), the part of its script (htmlAssets.ts) that records the
 * reviewer's keep / remove / change per line and per person, keeps them in local storage under the
 * packet's hash, bulk-keeps what has no risk found, counts the progress and saves the sign-off
 * (JSON, or CSV through SIGNOFF_CSV_JS) as a download once the reviewer's name and attestation are
 * given. Plain ES2017 text, run inside the page script's closure (it uses its el, fmt, views,
 * orgs and data); signoff.ts reads what it saves.
 */

/** The columns of the CSV sign-off the page saves (signoff.ts reads them by name). */
export const SIGNOFF_CSV_HEADER = [
  "organization_id",
  "person",
  "name",
  "scope",
  "database",
  "permissions",
  "decision",
  "justification",
  "reviewer",
  "reviewed_on",
  "packet_sha256",
  "attestation",
];

/**
 * The page's CSV writer, plain JavaScript (it runs in the page; the tests run the same text):
 * signoffCsv(rows) is the file's text, header first.
 *
 * Why this shape: Excel opens a .csv by splitting on the list separator of the machine's locale
 * (',' in en-US, ';' where the decimal mark is a comma), so a file written with either one opens
 * in one column somewhere. A first line "sep=," tells Excel the delimiter whatever the locale, and
 * the UTF-8 byte-order mark before it tells Excel the file is UTF-8 (without it, accented names
 * come out garbled on Windows). Every other reader (apply-signoff, LibreOffice, csv-parse with the
 * line skipped) reads the sep= line as a hint or a row to skip. Cells a spreadsheet would run as
 * a formula get a leading ' (apply-signoff takes it off); cells holding ',', ';', a quote or a
 * line end are quoted, so a reader splitting on either delimiter keeps each cell whole.
 */
export const SIGNOFF_CSV_JS = `
function signoffCsv(header, rows) {
  function cell(v) {
    var s = v === undefined || v === null ? "" : String(v);
    if (/^[=+\\-@\\t\\r]/.test(s)) s = "'" + s;
    return /[",;\\r\\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }
  return "\\ufeffsep=,\\r\\n" + [header].concat(rows).map(function (r) { return r.map(cell).join(","); }).join("\\r\\n") + "\\r\\n";
}
`;

/**
 * The decisions' part of the page script (see the file's comment): setUpDecisions() once the rows
 * are read; lineControls(line, tr) and personControls(person) the tables' decision cells;
 * effective(line) a line's decision; progress() the count.
 */
export const DECIDE_SCRIPT = `
  // ---- Decisions: per line and per person, kept in local storage by the packet's hash, saved as a sign-off file.
  var state = { decisions: {}, reviewer: "" };
  var storeKey = "";
  var BULK_WHY = "no risk found: declared and unchanged since the last review (kept in bulk)";

  function loadState() {
    try {
      var saved = JSON.parse(localStorage.getItem(storeKey) || "null");
      if (saved && saved.decisions) state = saved;
    } catch (e) {
      // No storage for this file (a viewer may forbid it): decisions last until the page closes.
    }
  }
  function storeState() {
    try {
      localStorage.setItem(storeKey, JSON.stringify(state));
    } catch (e) {
      // As above.
    }
  }
  function own(id) {
    var d = state.decisions[id];
    return d && d.d ? d : null;
  }
  // A line's decision: its own, else its person's.
  function effective(l) {
    return own(l.id) || own(l.person.id);
  }
  function setDecision(id, field, value) {
    var d = state.decisions[id] || { d: "", j: "", p: "" };
    d[field] = value;
    if (d.d || d.j || d.p) state.decisions[id] = d;
    else delete state.decisions[id];
    storeState();
    progress();
  }
  function choice(options, value) {
    var s = el("select");
    options.forEach(function (o) {
      var opt = el("option", null, o[1]);
      opt.value = o[0];
      s.appendChild(opt);
    });
    s.value = value || "";
    return s;
  }
  function textInput(cls, value, placeholder) {
    var i = el("input", cls);
    i.type = "text";
    i.value = value || "";
    i.placeholder = placeholder;
    return i;
  }
  // The justification's (and a change's permissions') input appear once the line or person has a
  // decision: 500 rows of idle text inputs would double the page's load at 28,000 people.
  function justification(host, id, d) {
    if (host.firstChild || !(d.d || d.j)) return;
    var why = textInput("why", d.j, "why");
    why.addEventListener("change", function () { setDecision(id, "j", why.value); });
    host.appendChild(why);
  }
  // An undecided row shows a button that opens its select: a select per row (500 a page, in two
  // tables) would double the page's load at 28,000 people.
  function opener(label, open) {
    var b = el("button", "decide", label);
    b.type = "button";
    b.addEventListener("click", function () {
      var c = open();
      b.replaceWith(c);
      (c.querySelector("select") || c).focus();
    });
    return b;
  }
  function lineControls(l, tr) {
    var d = state.decisions[l.id] || {};
    var box = el("div");
    var whyBox = el("div");
    function open() {
      var s = choice([["", "\\u2014 undecided"], ["keep", "keep"], ["remove", "remove"], ["change", "change"]], d.d);
      s.className = "decision";
      var wrap = el("span");
      wrap.appendChild(s);
      var perms = null;
      function showPerms() {
        if (perms) perms.hidden = s.value !== "change";
        if (s.value !== "change" || perms) return;
        perms = textInput("perms", d.d === "change" ? d.p : l.perms, "new permissions, e.g. DB_UPLOAD");
        perms.addEventListener("change", function () { setDecision(l.id, "p", perms.value.trim()); });
        wrap.appendChild(perms);
      }
      s.addEventListener("change", function () {
        setDecision(l.id, "d", s.value);
        showPerms();
        if (s.value === "change") setDecision(l.id, "p", perms.value.trim());
        justification(whyBox, l.id, state.decisions[l.id] || {});
        tr.className = effective(l) ? "decided" : "";
      });
      showPerms();
      return wrap;
    }
    box.appendChild(own(l.id) ? open() : opener("decide\\u2026", open));
    var byPerson = own(l.person.id);
    if (byPerson && !own(l.id)) box.appendChild(el("span", "by-person", byPerson.d + " (the person's decision)"));
    justification(whyBox, l.id, d);
    return [box, whyBox];
  }
  function personControls(p) {
    var d = state.decisions[p.id] || {};
    var whyBox = el("div");
    function open() {
      var s = choice([["", "\\u2014"], ["keep", "keep all their access"], ["remove", "remove all their access"]], d.d);
      s.className = "person-decision";
      s.addEventListener("change", function () {
        setDecision(p.id, "d", s.value);
        redraw();
      });
      return s;
    }
    justification(whyBox, p.id, d);
    return [own(p.id) ? open() : opener("decide for the person\\u2026", open), whyBox];
  }
  function allLines() {
    var out = [];
    orgs.forEach(function (o) { out.push.apply(out, o.lines); });
    return out;
  }
  function progress() {
    var lines = allLines();
    var n = lines.filter(effective).length;
    document.getElementById("progress").textContent = fmt(n) + " of " + fmt(lines.length) + " decided";
    var calm = lines.filter(function (l) { return l.calm && !effective(l); }).length;
    document.getElementById("bulk-note").textContent = fmt(calm) + " undecided with no risk found";
  }
  function redraw() {
    views.forEach(function (v) { v.draw(); });
  }
  function bulkKeep() {
    allLines().forEach(function (l) {
      if (l.calm && !effective(l)) state.decisions[l.id] = { d: "keep", j: BULK_WHY, p: "" };
    });
    storeState();
    redraw();
    progress();
  }
  function today() {
    return new Date().toISOString().slice(0, 10);
  }
  // Every line with its decision (a line's own, else its person's); undecided lines too, as apply-signoff lists them.
  function signoffRows() {
    var reviewer = state.reviewer.trim();
    var rows = [];
    orgs.forEach(function (o) {
      o.lines.forEach(function (l) {
        var d = effective(l) || { d: "", j: "", p: "" };
        rows.push({
          organization: String(o.id),
          email: l.person.key,
          name: l.person.name,
          scope: l.scope,
          database: l.scope === "organization" ? "" : l.text.split(" (" + l.scope + ")")[0],
          decision: d.d,
          permissions: d.d === "change" ? d.p || "" : l.perms,
          justification: d.j || "",
          reviewer: d.d ? reviewer : "",
          reviewed_on: d.d ? today() : "",
        });
      });
    });
    return rows;
  }
  function download(name, text, type) {
    // A Blob's object URL, followed by a link with a download name: no request leaves the page.
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = el("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }
  function canSave() {
    return state.reviewer.trim() !== "" && document.getElementById("attest").checked;
  }
  function save(kind) {
    var note = document.getElementById("save-note");
    if (!canSave()) {
      note.className = "refused";
      note.textContent = "Not saved: enter your name and tick the attestation first.";
      return;
    }
    var rows = signoffRows();
    var day = data.packet.asOf.slice(0, 10);
    if (kind === "json") {
      var signoff = {
        format: "pulumi-reviewadmin sign-off 1",
        packet: data.packet,
        reviewer: state.reviewer.trim(),
        attestation: data.attestation,
        signedAt: new Date().toISOString(),
        decisions: rows.map(function (r) {
          return {
            organization: r.organization,
            email: r.email,
            name: r.name,
            scope: r.scope,
            decision: r.decision,
            permissions: r.permissions ? r.permissions.split(" ") : [],
            justification: r.justification,
            reviewer: r.reviewer,
            reviewed_on: r.reviewed_on,
          };
        }),
      };
      download("signoff-" + day + ".json", JSON.stringify(signoff, null, 2) + "\\n", "application/json");
    } else {
      var body = rows.map(function (r) {
        return [r.organization, r.email, r.name, r.scope, r.database, r.permissions, r.decision, r.justification, r.reviewer, r.reviewed_on, data.packet.sha256, data.attestation];
      });
      download("signoff-" + day + ".csv", signoffCsv(data.csvHeader, body), "text/csv;charset=utf-8");
    }
    note.className = "";
    note.textContent = "Saved " + rows.filter(function (r) { return r.decision; }).length + " decisions of " + rows.length + " lines.";
  }
  function setUpDecisions() {
    storeKey = "pulumi-reviewadmin sign-off " + data.packet.sha256;
    loadState();
    var reviewer = document.getElementById("reviewer");
    var attest = document.getElementById("attest");
    var buttons = [document.getElementById("save-json"), document.getElementById("save-csv")];
    function gate() {
      buttons.forEach(function (b) { b.disabled = !canSave(); });
    }
    reviewer.value = state.reviewer || "";
    reviewer.addEventListener("input", function () { state.reviewer = reviewer.value; storeState(); gate(); });
    attest.addEventListener("change", gate);
    buttons[0].addEventListener("click", function () { save("json"); });
    buttons[1].addEventListener("click", function () { save("csv"); });
    document.getElementById("bulk-keep").addEventListener("click", bulkKeep);
    gate();
  }
`;
