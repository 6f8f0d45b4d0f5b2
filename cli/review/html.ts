/**
 * review.html: the packet for people in a browser, one self-contained file. It loads nothing (its
 * Content-Security-Policy allows no source at all but its inline style and its one inline script,
 * named by hash), so it reads the same from a file, a mail attachment or an archive, and a script
 * that got into it by a name would not run even if escaping failed.
 *
 * Built from review.md's pieces (render.ts: the summary's counts and reasons, lines of access and
 * permissions in words, times in the reviewer's zone, the code's verdicts, the one severity order
 * of severity.ts), in the same order: what was not reviewed, the changes since the last review
 * and the walls' status first, then the reviewer's decisions (progress, bulk keep, name,
 * attestation, the sign-off's save), the summary, then per organization the access matrix (per
 * database, collapsed counts in a heat map whose rows open on that database's people; then people
 * x databases, paged) and everyone's lines of access, each with its decision; the legend last. The static part is escaped here (escapeHtml); the people's rows
 * go in as JSON, which the page's script (htmlAssets.ts) draws a page at a time. Deterministic:
 * a function of the packet and the zone only.
 */
import { createHash } from "node:crypto";
import {
  linePrivileges,
  packetJson,
  PERMISSION_WORDS,
  permissionText,
  type AccessLine,
  type ReviewOrganization,
  type ReviewPacket,
} from "./format";
import { PAGE_SCRIPT, PAGE_STYLE } from "./htmlAssets";
import { SIGNOFF_CSV_HEADER } from "./htmlDecide";
import { NO_WALLS_KNOWN } from "./packetWalls";
import { formText, statusText } from "./wallReport";
import { exceptionText } from "../../contract/grants";
import { SEVERITY_WORDS } from "./severity";
import {
  codeLine,
  codeLineText,
  flagLegend,
  lastActivityText,
  lineFlags,
  lineText,
  notReviewedText,
  NO_FIRM_DOMAIN,
  organizationCounts,
  organizationLead,
  readingNotes,
  reasonText,
  risksOf,
  severityLegend,
  SIGNOFF_COLUMNS,
  sinceText,
  timeText,
  titleText,
  wallsStatus,
  wallsText,
  zonedText,
  zoneNote,
  type RenderOptions,
} from "./render";

/** How the matrix shades a line of access, with the legend's words; the first that applies wins. */
export const MATRIX_KINDS = {
  admin: "holds a privilege: an organization permission, or DB_ADMIN (invited to one, too)",
  write: "deletes documents or places legal holds (DB_DELETE, DB_LEGAL_HOLD)",
  use: "other permissions (uploads documents, DB_UPLOAD)",
  none: "a member with no permission",
  invited: "invited, no permission",
  expired: "invitation expired",
  suspended: "a suspended account's database permissions",
} as const;
/** One kind of MATRIX_KINDS. */
export type MatrixKind = keyof typeof MATRIX_KINDS;
const KINDS = Object.keys(MATRIX_KINDS) as MatrixKind[];

/** The matrix's kind of a line of access. */
export function matrixKind(l: AccessLine): MatrixKind {
  if (l.status === "invitation-expired") return "expired";
  if (l.status === "granted" && l.active === false) return "suspended";
  if (linePrivileges(l).length > 0) return "admin";
  if (l.status === "invited") return "invited";
  if (l.permissions.some((x) => x === "DB_DELETE" || x === "DB_LEGAL_HOLD")) return "write";
  return l.permissions.length > 0 ? "use" : "none";
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML text or attribute value: & < > " ' escaped, so no name, email or database name becomes markup. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Escaped text whose `code spans` (review.md's) become code elements. */
const codeSpans = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, "<code>$1</code>");

const num = (n: number) => n.toLocaleString("en-US");

/** Each text once, by number: the page's JSON names a repeated text ("member: no permissions") by its index. */
class Strings {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) this.ids.set(s, (i = this.list.push(s) - 1));
    return i;
  }
}

/** The places of an organization's matrix: the organization, then each database reviewed, each [short label, full label]; and the column of a line. */
function placesOf(o: ReviewOrganization): { columns: [string, string][]; columnOf: (l: AccessLine) => number } {
  const columns: [string, string][] = [["org", `${o.name} (organization ${o.id})`]];
  const index = new Map<string, number>([["organization", 0]]);
  for (const d of o.databases) index.set(`database ${d.id}`, columns.push([String(d.id), `${d.name} (database ${d.id})`]) - 1);
  // A line of a database the packet does not list as reviewed still gets a column, after those.
  for (const x of o.people)
    for (const l of x.lines)
      if (!index.has(l.scope))
        index.set(l.scope, columns.push([l.scope.replace(/^database /, ""), `${l.database ?? ""} (${l.scope})`]) - 1);
  return { columns, columnOf: (l) => index.get(l.scope)! };
}

/** The rows the page's script draws (see htmlAssets.ts for how it reads them). */
function pageData(p: ReviewPacket, r: RenderOptions, json: string) {
  const strings = new Strings();
  const t = (s: string) => strings.id(s);
  const organizations = p.organizations.map((o) => {
    const { columns, columnOf } = placesOf(o);
    const people: [string, string, number, number, number][] = [];
    // Per line: person, column, access, code, kind, flags, risk, scope, permissions, and 1 when bulk keep may keep it.
    const lines: [number, number, number, number, number, number, number, number, number, number][] = [];
    const attention: number[] = [];
    // Riskiest first (severity.ts): the tables and the matrix keep this order.
    risksOf(o).forEach(({ person: x, lines: risks, why: reasons }, i) => {
      if (reasons.length > 0) attention.push(i);
      // The reasons by name: the summary's table above the rows says what each means.
      people.push([x.key, x.name, t(lastActivityText(x, p, r)), t(x.flags.join(", ")), t(reasons.join(", "))]);
      x.lines.forEach((l, j) => {
        const c = codeLine(x, l.scope);
        // The walls are the person's, not a line's: said once, on their first line.
        const code = p.stack ? [...(c ? [codeLineText(c)] : []), ...(j === 0 ? wallsText(x) : [])].join("\n") : "";
        lines.push([
          i,
          columnOf(l),
          t(lineText(l, r)),
          t(code),
          KINDS.indexOf(matrixKind(l)),
          t(lineFlags(x, l).join(", ")),
          t(risks[j]!.join(", ")),
          t(l.scope),
          t(l.permissions.join(" ")),
          // Bulk keep takes what needs no decision: no risk found and, with a stack, declared by the code as held.
          risks[j]!.length === 0 && (!p.stack || (c !== undefined && c.declaredBy.length > 0 && !c.notInCode?.length)) ? 1 : 0,
        ]);
      });
    });
    const change = (c: NonNullable<ReviewOrganization["since"]>["gained"][number]) => [
      c.key,
      t(c.before ? lineText(c.before, r) : "—"),
      t(c.after ? lineText(c.after, r) : "—"),
      t(zonedText(c.attribution, r)),
    ];
    return {
      id: o.id,
      columns,
      people,
      lines,
      attention,
      ...(o.since
        ? { since: { gained: o.since.gained.map(change), lost: o.since.lost.map(change), changed: o.since.changed.map(change) } }
        : {}),
    };
  });
  return {
    kinds: KINDS,
    withCode: p.stack !== undefined,
    // What the sign-off names: the review.json it was made against (by SHA-256, as manifest.json lists it).
    packet: { sha256: createHash("sha256").update(json).digest("hex"), asOf: p.asOf },
    attestation: ATTESTATION,
    csvHeader: SIGNOFF_CSV_HEADER,
    headers: {
      attention: ["person", "name", "why", "access", "decide for the person", "justification"],
      lines: [
        "person",
        "name",
        "risk",
        "access",
        "last activity",
        "flags",
        ...(p.stack ? ["in the stack's code"] : []),
        "decision",
        "justification",
      ],
      since: ["person", "access before", "access now", "who and when"],
      detail: ["person", "name", "access", "flags", "last activity"],
    },
    organizations,
    strings: strings.list,
  };
}

/** The sentence the reviewer attests before the page saves their decisions (in the JSON sign-off, with their name). */
export const ATTESTATION =
  "I reviewed each line of access I decided here against the firm's need for it; my decisions and their justifications are mine and complete.";

/** A placeholder the script replaces: what a reader without scripts reads instead. */
const NEEDS_SCRIPT = `<p class="needs-script">Drawn by this page's script; allow scripts for this file, or read review.md or review.csv, which hold the same.</p>`;

/** The summary: per organization, the counts, the reasons with how many people each, and who (drawn by the script). */
function summary(p: ReviewPacket): string[] {
  const out = [`<section id="summary">`, `<h2>Summary</h2>`];
  p.organizations.forEach((o, i) => {
    const c = organizationCounts(o);
    out.push(
      `<h3>${escapeHtml(o.name)} (organization ${o.id})</h3>`,
      `<p class="counts"><span data-count="people">${num(c.people)}</span> people, <span data-count="lines">${num(c.lines)}</span> lines of access, <span data-count="databases">${num(c.databases)}</span> databases reviewed; <strong><span data-count="attention">${num(c.attention.length)}</span> need attention</strong>, riskiest first.</p>`,
    );
    if (c.attention.length === 0) return;
    out.push(
      `<table class="reasons"><thead><tr><th>why</th><th>people</th><th>meaning</th></tr></thead><tbody>`,
      ...c.byReason.map(
        ([a, n]) => `<tr data-reason="${a}"><td>${a}</td><td class="n">${num(n)}</td><td>${escapeHtml(SEVERITY_WORDS[a])}</td></tr>`,
      ),
      `</tbody></table>`,
      `<div class="view" data-view="attention" data-org="${i}">${NEEDS_SCRIPT}</div>`,
    );
  });
  out.push(`</section>`);
  return out;
}

/** How to read the review: review.md's notes and legends, the permissions' words and the matrix's shades. */
function howToRead(p: ReviewPacket, r: RenderOptions): string[] {
  return [
    `<section id="how">`,
    `<h2>How to read this review</h2>`,
    `<p>${readingNotes(p, r).map(codeSpans).join("\n")}</p>`,
    `<p>Risk, riskiest first (a privilege alone is not a reason: it raises what else is wrong with the line):</p>`,
    `<ul>`,
    ...severityLegend().map(([x, meaning]) => `<li><strong>${x}</strong>: ${escapeHtml(meaning)}.</li>`),
    `</ul>`,
    `<p>Flags:</p>`,
    `<ul>`,
    ...flagLegend(p).map(([f, meaning]) => `<li><strong>${f}</strong>: ${escapeHtml(meaning)}.</li>`),
    ...p.notJudged.map((n) => `<li>Not judged: ${codeSpans(n)}.</li>`),
    `</ul>`,
    ...(p.firmDomains.length === 0 ? [`<p>${escapeHtml(NO_FIRM_DOMAIN)}</p>`] : []),
    `<p>Permissions, in words with the API's name beside:</p>`,
    `<table class="permissions"><tbody>`,
    ...Object.keys(PERMISSION_WORDS).map((k) => `<tr><td><code>${k}</code></td><td>${escapeHtml(permissionText(k))}</td></tr>`),
    `</tbody></table>`,
    `</section>`,
  ];
}

/** The matrix's legend of shades. */
const legend = () =>
  `<p class="legend">${KINDS.map((k) => `<span><i class="k-${k}"></i>${escapeHtml(MATRIX_KINDS[k])}</span>`).join("")}</p>`;

/**
 * The heat map of one organization: a row per place (the organization, each database), a column
 * per count (people with access there, each permission held, each reason for attention), shaded
 * by the count against the column's largest. Each row is a <details> that opens on the place's
 * people (drawn by the script when first opened).
 */
function heatMap(o: ReviewOrganization, i: number): string[] {
  const { columns, columnOf } = placesOf(o);
  const counted = organizationCounts(o);
  const why = new Map(counted.attention.map((a) => [a.person.key, a.why]));
  const items = o.people.flatMap((x) => x.lines.map((l) => ({ why: why.get(x.key) ?? [], l, c: columnOf(l) })));
  const perms = Object.keys(PERMISSION_WORDS).filter((k) => items.some(({ l }) => l.permissions.includes(k)));
  const heads: { label: string; title: string; has: (x: (typeof items)[number]) => boolean }[] = [
    { label: "people", title: "people with access there", has: () => true },
    ...perms.map((k) => ({
      label: k,
      title: `hold ${permissionText(k)}`,
      has: (x: (typeof items)[number]) => x.l.permissions.includes(k),
    })),
    ...counted.byReason.map(([a]) => ({
      label: a,
      title: `need attention: ${reasonText(a)}`,
      has: (x: (typeof items)[number]) => x.why.includes(a),
    })),
  ];
  // One pass over the lines (a person has one line per place, so lines count people).
  const table = columns.map(() => heads.map(() => 0));
  for (const x of items)
    heads.forEach((h, k) => {
      if (h.has(x)) table[x.c]![k]!++;
    });
  const max = heads.map((_, h) => Math.max(1, ...table.map((row) => row[h]!)));
  const out = [
    `<div class="heat" style="--n: ${heads.length}">`,
    `<div class="head"><span class="where">where</span>${heads.map((h) => `<span title="${escapeHtml(h.title)}">${escapeHtml(h.label)}</span>`).join("")}</div>`,
  ];
  columns.forEach(([, where], c) => {
    const cells = table[c]!.map((n, h) => {
      const level = n === 0 ? 0 : Math.ceil((4 * n) / max[h]!);
      return `<span class="h${level}" title="${escapeHtml(`${where}: ${n} ${heads[h]!.title}`)}">${n === 0 ? "" : num(n)}</span>`;
    });
    out.push(
      `<details class="group" data-org="${i}" data-column="${c}"><summary><span class="where" title="${escapeHtml(where)}">${escapeHtml(where)}</span>${cells.join("")}</summary><div class="detail">${NEEDS_SCRIPT}</div></details>`,
    );
  });
  out.push(`</div>`);
  return out;
}

/** The top of the page: the walls' status, and per organization what was not reviewed and what changed since the last review. */
function beforeYouSign(p: ReviewPacket, r: RenderOptions): string[] {
  const out = [
    `<section id="before">`,
    `<h2>Before you sign</h2>`,
    `<p id="walls-status"><strong>Ethical walls:</strong> ${escapeHtml(wallsStatus(p))}.</p>`,
  ];
  p.organizations.forEach((o, i) => {
    const not = notReviewedText(o);
    out.push(
      `<h3>${escapeHtml(o.name)} (organization ${o.id})</h3>`,
      `<ul class="not-reviewed">`,
      ...(not.length
        ? not.map((t) => `<li><strong>${escapeHtml(t)}</strong></li>`)
        : [`<li>Not reviewed: nothing; every database of the organization was read.</li>`]),
      `<li class="since-counts">${escapeHtml(sinceText(o, r))}</li>`,
      `</ul>`,
    );
    if (!o.since) return;
    for (const kind of ["gained", "lost", "changed"] as const) {
      const n = o.since[kind].length;
      const title = kind[0]!.toUpperCase() + kind.slice(1);
      out.push(
        n === 0
          ? `<p><strong>${title}:</strong> none.</p>`
          : `<p><strong>${title}</strong> (${num(n)}):</p><div class="view" data-view="${kind}" data-org="${i}">${NEEDS_SCRIPT}</div>`,
      );
    }
  });
  out.push(`</section>`);
  return out;
}

/** Where the reviewer decides: progress, bulk keep, their name and attestation, and the two saves. */
function decide(p: ReviewPacket): string[] {
  const lines = p.organizations.reduce((n, o) => n + o.people.reduce((k, x) => k + x.lines.length, 0), 0);
  const day = p.asOf.slice(0, 10);
  return [
    `<section id="decide">`,
    `<h2>Your decisions</h2>`,
    `<p>Decide each line of access in "Everyone with access" below (keep, remove, or change to the permissions you write), or a whole person in the summary's table (a line's own decision wins). Your decisions stay in this browser, for this packet only, until you save them; nothing leaves this page but the file you save.</p>`,
    `<p><strong id="progress">0 of ${num(lines)} decided</strong> <button type="button" id="bulk-keep">Keep every undecided line with no risk found</button> <span id="bulk-note" class="muted"></span></p>`,
    `<p><label for="reviewer">Your name:</label> <input id="reviewer" type="text" autocomplete="name" placeholder="e.g. Ada Lovelace <ada@northwind.example>"></p>`,
    `<p><label><input type="checkbox" id="attest"> ${escapeHtml(ATTESTATION)}</label></p>`,
    `<p><button type="button" id="save-json" disabled>Save the sign-off (JSON)</button> <button type="button" id="save-csv" disabled>Save the sign-off (CSV, for a spreadsheet)</button> <span id="save-note" class="muted">Enter your name and tick the attestation to save.</span></p>`,
    `<p class="muted">Then: <code>pulumi-reviewadmin review apply-signoff --signoff signoff-${day}.json --packet &lt;this folder&gt; --access access/access.ts</code>; it refuses a sign-off made against another packet.</p>`,
    `</section>`,
  ];
}

/** One organization's section: its counts, what is not reviewed, the changes since the last review, the matrix, everyone's lines. */
function organizationSection(o: ReviewOrganization, i: number, p: ReviewPacket): string[] {
  const out = [
    `<section class="organization" id="organization-${o.id}">`,
    `<h2>${escapeHtml(o.name)} (organization ${o.id})</h2>`,
    `<p>${escapeHtml(organizationLead(o, p))}</p>`,
  ];
  out.push(
    `<h3>Access matrix</h3>`,
    `<p>Per place, how many people have access there, hold each permission and need attention for each reason; darker is more within the column. Open a row for its people.</p>`,
    ...heatMap(o, i),
    `<p>People × databases: a row per person, those holding a permission somewhere first; a column per place (the organization first, then each database by id; its name in the column's title); each cell's title says the access in words.</p>`,
    legend(),
    `<div class="matrix-box"><div class="matrix" data-org="${i}">${NEEDS_SCRIPT}</div></div>`,
    `<h3>Everyone with access</h3>`,
    `<p>One row per line of access, as in review.csv, riskiest first. Decide each here (see "Your decisions"), or fill the sign-off columns (${SIGNOFF_COLUMNS.join(", ")}) of review.csv; <code>pulumi-reviewadmin review apply-signoff</code> reads either.</p>`,
    `<div class="view" data-view="lines" data-org="${i}">${NEEDS_SCRIPT}</div>`,
    `</section>`,
  );
  return out;
}

/**
 * The wall compliance report (packetWalls.ts), as review.md has it: per wall its breaches, what is
 * unenforceable and the exceptions in force; one line when no wall is known or declared.
 */
function wallsSection(p: ReviewPacket, r: RenderOptions): string[] {
  const out = [`<section id="walls">`, `<h2>Ethical walls: compliance report</h2>`];
  const report = p.walls;
  if (!report) return [...out, `<p>${codeSpans(NO_WALLS_KNOWN.replace(/\*\*/g, ""))}</p>`, `</section>`];
  const t = (iso: string) => escapeHtml(timeText(iso, r));
  out.push(`<p>Period: ${t(report.since)} to ${t(report.until)}. Walls of ${escapeHtml(report.source)}.</p>`);
  if (report.walls.length === 0) out.push(`<p>The stack declares no ethical wall.</p>`);
  for (const w of report.walls) {
    const open = w.breaches.filter((b) => b.status === "open").length;
    const fixed = w.breaches.filter((b) => b.status === "fixed").length;
    out.push(
      `<h3>${escapeHtml(w.name)}: ${formText(w)} on database${w.databaseIds.length === 1 ? "" : "s"} ${w.databaseIds.join(", ")} (${escapeHtml(w.reason)})</h3>`,
      `<p>Breaches: ${w.breaches.length} (${fixed} fixed, ${open} open). Unenforceable: ${w.unenforceable.length}. Exceptions in force: ${w.exceptionsInForce.length}.</p>`,
    );
    if (w.breaches.length) {
      out.push(
        `<table class="walls"><thead><tr><th>person</th><th>database</th><th>permissions</th><th>made</th><th>made by</th><th>fixed</th><th>fixed by</th><th>status</th></tr></thead><tbody>`,
        ...w.breaches.map(
          (b) =>
            `<tr class="${b.status}"><td>${escapeHtml(`${b.email} (user ${b.userId})`)}</td><td>${b.databaseId}</td><td>${escapeHtml(b.permissions.join(", "))}</td>` +
            `<td>${b.madeAt ? t(b.madeAt) : "before the period, or not in the log"}</td><td>${escapeHtml(b.madeBy ?? "")}</td>` +
            `<td>${b.fixedAt ? t(b.fixedAt) : ""}</td><td>${escapeHtml(b.fixedBy ?? "")}</td><td>${escapeHtml(statusText(b))}</td></tr>`,
        ),
        `</tbody></table>`,
      );
    }
    if (w.unenforceable.length) {
      out.push(
        `<p>Unenforceable:</p>`,
        `<ul>`,
        ...w.unenforceable.map(
          (u) =>
            `<li>${escapeHtml(`${u.email} (user ${u.userId}) on database ${u.databaseId}: ${u.why}`)}${u.madeAt ? escapeHtml(`; made org admin at ${timeText(u.madeAt, r)} by ${u.madeBy}`) : ""}.</li>`,
        ),
        `</ul>`,
      );
    }
    if (w.exceptionsInForce.length) {
      out.push(
        `<p>Exceptions in force on ${report.until.slice(0, 10)}:</p>`,
        `<ul>`,
        ...w.exceptionsInForce.map((x) => `<li>${escapeHtml(exceptionText(x))}</li>`),
        `</ul>`,
      );
    }
  }
  return [...out, `</section>`];
}

/** review.html of a packet, times in the reviewer's zone; `packetText` is review.json's text (packetJson), made once by a caller that writes both. */
export function html(p: ReviewPacket, r: RenderOptions, packetText = packetJson(p)): string {
  // "<" written as \u003c: no text in the JSON can close its script element.
  const json = JSON.stringify(pageData(p, r, packetText)).replace(/</g, "\\u003c");
  const scriptHash = createHash("sha256").update(PAGE_SCRIPT).digest("base64");
  const title = titleText(p, r);
  return [
    `<!DOCTYPE html>`,
    `<html lang="en">`,
    `<head>`,
    `<meta charset="utf-8">`,
    // Nothing loads from anywhere: no request leaves the page, and only the script below, by its hash, runs.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    `</head>`,
    `<body>`,
    `<header>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="muted">${escapeHtml(zoneNote(r))}</p>`,
    `<p><label for="filter">Filter people:</label> <input id="filter" type="search" placeholder="email, name, flag, reason or database" autocomplete="off"><span id="filter-note"></span></p>`,
    `<nav><a href="#before">Before you sign</a><a href="#decide">Your decisions</a><a href="#summary">Summary</a>${p.organizations.map((o) => `<a href="#organization-${o.id}">${escapeHtml(o.name)}</a>`).join("")}<a href="#walls">Ethical walls</a><a href="#how">How to read</a></nav>`,
    `</header>`,
    `<noscript><p>The tables of people are drawn by this page's script; review.md and review.csv hold the same.</p></noscript>`,
    ...beforeYouSign(p, r),
    ...decide(p),
    ...summary(p),
    ...p.organizations.flatMap((o, i) => organizationSection(o, i, p)),
    ...wallsSection(p, r),
    ...howToRead(p, r),
    `<script type="application/json" id="review-data">${json}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    `</body>`,
    `</html>`,
    "",
  ].join("\n");
}
