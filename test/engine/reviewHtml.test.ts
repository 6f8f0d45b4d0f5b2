/**
 * review.html (issue 36) checked where it is read, in headless Chromium over the DevTools protocol
 * (harness/chromium.ts), on the seeded world grown to a few thousand people and given a person and
 * a database whose names are markup. The summary's counts, the heat map and the people x databases
 * matrix render, the DOM stays bounded (500 rows a page), the filter box and
 * review.html#filter=TEXT keep the matching people, no name runs as script, times are in the zone
 * chosen, and the file is in the manifest and byte-identical across two runs. In the engine tier
 * for the browser it starts; fails, never skips, without Chromium (.ci/run installs it).
 * Screenshots go to test-artifacts/review-html/ (gitignored); the test prints where. The page as
 * written (escaping, the code's column, the shades): test/cli/reviewHtml.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { findChromium, openChromium, type ChromiumPage } from "../../harness/chromium";
import type { ReviewPacket, ReviewPerson } from "../../cli/review/format";
import { matrixKind } from "../../cli/review/html";
import { sha256 } from "../../cli/review/manifest";
import { organizationCounts, risksOf } from "../../cli/review/render";
import { control } from "../support/emulatorHttp";
import { useReviewEmulator } from "../cli/reviewEmulator";
import { runCli } from "../cli/runCli";

const { world, review } = useReviewEmulator("html");
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");
const ARTIFACTS = path.join(__dirname, "../../test-artifacts/review-html");

/** A name that would run as script if any of it reached the page as markup. */
const EVIL = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;
const EVIL_EMAIL = "mallory@outside.example";

/** The seeded world with 3,000 more members and 20 databases x 40 users, a person and a database named as markup. */
async function grow() {
  world.emu.reset(1, { members: 3000, databases: 20, usersPerDatabase: 40 });
  const ok = (r: { status: number; body: unknown }) => {
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body as { data: any };
  };
  const member = ok(
    await control(world.emu.url, "POST", `/organizations/${SEEDED.org}/members`, {
      email: EVIL_EMAIL,
      firstName: EVIL,
      lastName: "</script>&amp;",
      permissions: ["AI_ADMIN"],
    }),
  ).data;
  const db = ok(await control(world.emu.url, "POST", "/databases", { organizationId: SEEDED.org, name: `Matter ${EVIL}` })).data;
  ok(await control(world.emu.url, "PUT", `/databases/${db.id}/users/${member.id}`, { permissions: ["DB_DELETE", "DB_UPLOAD"] }));
}

describe("review.html in headless Chromium, a few thousand people", () => {
  let out = "";
  let packet: ReviewPacket;
  let page: ChromiumPage | undefined;
  const url = (hash = "") => `file://${path.join(out, "review.html")}${hash}`;
  /** Facts about the page as drawn, read in the browser. */
  const drawn = () =>
    page!.evaluate<{
      ready?: string;
      failed?: string;
      pwned: unknown;
      elements: number;
      counts: Record<string, string>;
      reasons: Record<string, string>;
      note: string;
      pagers: string[];
      matrixRows: string[];
      matrixCells: number;
      lineRows: string[][];
      title: string;
    }>(`(() => {
      const text = (e) => e.textContent;
      return {
        ready: document.documentElement.dataset.ready,
        failed: document.documentElement.dataset.failed,
        pwned: window.__pwned,
        elements: document.getElementsByTagName("*").length,
        counts: Object.fromEntries([...document.querySelectorAll("#summary [data-count]")].map((e) => [e.dataset.count, text(e)])),
        reasons: Object.fromEntries([...document.querySelectorAll("#summary tr[data-reason]")].map((e) => [e.dataset.reason, text(e.cells[1])])),
        note: text(document.getElementById("filter-note")),
        pagers: [...document.querySelectorAll(".pager .where")].map(text),
        matrixRows: [...document.querySelectorAll(".matrix .who")].map(text),
        matrixCells: document.querySelectorAll(".matrix .grid i").length,
        lineRows: [...document.querySelectorAll('.view[data-view="lines"] tbody tr')].map((tr) => [...tr.cells].map(text)),
        title: text(document.querySelector("h1")),
      };
    })()`);

  /** Scrolls the element into view below the page's sticky header, for a screenshot. */
  const show = (selector: string) =>
    page!.evaluate(
      `document.querySelector(${JSON.stringify(selector)}).scrollIntoView(); window.scrollBy(0, -document.querySelector("header").offsetHeight - 8)`,
    );

  const chromium = findChromium();
  /** The browser's page; each test that needs it fails (never skips) without Chromium, saying how to get it. */
  const browser = () => {
    expect(chromium, "headless Chromium is needed: apt-get install -y chromium (or set CHROMIUM to its path)").toBeDefined();
    return page!;
  };

  beforeAll(async () => {
    await grow();
    out = path.join(world.tmp, "packet");
    const r = await review(out, "--firm-domain", "northwind.example", "--time-zone", "Europe/Berlin");
    expect(r, r.err).toMatchObject({ code: 0 });
    packet = JSON.parse(read(out, "review.json"));
    if (chromium) page = await openChromium({ binary: chromium, width: 1400, height: 1000 });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    console.log(`review.html screenshots: ${ARTIFACTS}`);
  }, 120_000);
  // Closed in the last test's finally and after all: a browser left running would hold the worker.
  const closePage = async () => {
    await page?.close();
    page = undefined;
  };
  afterAll(closePage);

  it("is listed in the manifest with its SHA-256, and byte-identical across two runs", async () => {
    const m = JSON.parse(read(out, "manifest.json"));
    expect(m.files["review.html"]).toBe(sha256(fs.readFileSync(path.join(out, "review.html"))));
    const again = path.join(world.tmp, "again");
    expect(await review(again, "--firm-domain", "northwind.example", "--time-zone", "Europe/Berlin")).toMatchObject({ code: 0 });
    expect(read(again, "review.html") === read(out, "review.html")).toBe(true);
    expect(read(again, "manifest.json").replace(again, out)).toBe(read(out, "manifest.json"));
    const verified = await runCli(["review", "verify", out]);
    expect(verified, verified.err).toMatchObject({ code: 0 });
    expect(verified.out).toContain("4 files match manifest.json");
  });

  it("draws the summary's counts, the heat map and the matrix, 500 rows at a time; no name runs", async () => {
    const loaded = await browser().goto(url());
    const d = await drawn();
    expect(d.failed).toBeUndefined();
    expect(d.ready).toBe("1");
    expect(d.pwned).toBeUndefined();
    const org = packet.organizations[0]!;
    const c = organizationCounts(org);
    expect(org.people.length).toBeGreaterThan(3000);
    expect(d.counts).toEqual({
      people: c.people.toLocaleString("en-US"),
      lines: c.lines.toLocaleString("en-US"),
      databases: c.databases.toLocaleString("en-US"),
      attention: c.attention.length.toLocaleString("en-US"),
    });
    expect(d.reasons).toEqual(Object.fromEntries(c.byReason.map(([a, n]) => [a, n.toLocaleString("en-US")])));
    expect(d.title).toBe("Access review as of 2026-11-20 13:00 Europe/Berlin (GMT+1)");
    expect(d.note).toBe(`${c.people.toLocaleString("en-US")} people`);
    // The attention table, the matrix and everyone's lines, each its first page of 500.
    const n = (x: number) => x.toLocaleString("en-US");
    expect(d.pagers).toEqual([`rows 1–500 of ${n(c.attention.length)}`, `rows 1–500 of ${n(c.people)}`, `rows 1–500 of ${n(c.lines)}`]);
    // The matrix: people holding a permission somewhere first, then the rest, each riskiest first; a cell per line of access.
    const holds = (p: ReviewPerson) => p.lines.some((l) => ["admin", "write", "use", "suspended"].includes(matrixKind(l)));
    const byRisk = risksOf(org).map((x) => x.person);
    const order = [...byRisk.filter(holds), ...byRisk.filter((p) => !holds(p))].slice(0, 500);
    expect(d.matrixRows).toEqual(order.map((p) => `${p.name} <${p.key}>`));
    expect(d.matrixCells).toBe(order.reduce((k, p) => k + p.lines.length, 0));
    // Bounded: the page is about as big at 3,800 people as it would be at 28,000.
    expect(d.elements).toBeLessThan(20_000);
    // The heat map: a row per place, each a <details> that opens on its people.
    const heat = await page!.evaluate<{ rows: number; opened: string[] }>(`(() => {
      const rows = document.querySelectorAll("details.group");
      const db = [...rows].find((r) => r.querySelector(".where").textContent.startsWith("Matter <script>"));
      db.querySelector("summary").click();
      return new Promise((resolve) => setTimeout(() => resolve({
        rows: rows.length,
        opened: [...db.querySelectorAll("tbody tr")].map((tr) => tr.cells[0].textContent + " | " + tr.cells[2].textContent),
      }), 50));
    })()`);
    expect(heat.rows).toBe(1 + org.databases.length);
    expect(heat.opened).toEqual([
      `${EVIL_EMAIL} | Matter ${EVIL} (database ${org.databases.at(-1)!.id}): deletes documents (DB_DELETE), uploads documents (DB_UPLOAD)`,
    ]);
    expect(await page!.evaluate("window.__pwned")).toBeUndefined();
    // The heat map's headers stay whole (ORG_ADMIN never "ORG_ADMI|N"): each on one line. The grid's text is at least 12 px.
    const type = await page!.evaluate<{ broken: string[]; heads: number; gridPx: number[] }>(`(() => {
      const lines = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length; };
      const heads = [...document.querySelectorAll(".heat .head > span:not(.where)")];
      return {
        broken: heads.filter((e) => lines(e) !== 1).map((e) => e.textContent),
        heads: heads.length,
        gridPx: [".matrix .grid .who", ".matrix .grid .col"].map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize)),
      };
    })()`);
    expect(type.heads).toBeGreaterThan(3);
    expect(type.broken).toEqual([]);
    for (const px of type.gridPx) expect(px).toBeGreaterThanOrEqual(12);
    await page!.screenshot(path.join(ARTIFACTS, "summary.png"));
    await show(".heat");
    await page!.screenshot(path.join(ARTIFACTS, "heat-map.png"));
    await show(".matrix");
    await page!.screenshot(path.join(ARTIFACTS, "matrix.png"));
    console.log(`review.html of ${c.people} people drawn in ${Math.round(loaded.wallMs)} ms (load to complete), ${d.elements} elements`);
  });

  it("filters by the address (#filter=TEXT) and by the box: every table and the matrix keep the matching people", async () => {
    await browser().goto(url("#filter=margaret%40northwind"));
    const d = await drawn();
    expect(d.note).toMatch(/^1 of [\d,]+ people match$/);
    expect(d.matrixRows).toEqual(["Margaret Hamilton <margaret@northwind.example>"]);
    expect(d.lineRows.map((r) => [r[0], r[3]])).toEqual([
      [
        "margaret@northwind.example",
        "member: administers the organization's cloud management (CLOUD_MANAGEMENT_ADMIN); identifiers MH Margaret Hamilton",
      ],
      ["margaret@northwind.example", "Northwind v. Contoso (database 2001): uploads documents (DB_UPLOAD)"],
    ]);
    // Each line undecided, a button opening its decision (test/engine/reviewDecide.test.ts decides).
    expect(
      await page!.evaluate(`[...document.querySelectorAll('.view[data-view="lines"] tbody tr button.decide')].map((b) => b.textContent)`),
    ).toEqual(["decide…", "decide…"]);
    await page!.screenshot(path.join(ARTIFACTS, "filtered-by-address.png"));

    // Typed into the box: the name given as markup is found as text, and still does not run.
    const typed = await page!.evaluate<{ note: string; rows: string[]; hash: string }>(`(() => {
        const input = document.getElementById("filter");
        input.value = "<script>";
        input.dispatchEvent(new Event("change"));
        return {
          note: document.getElementById("filter-note").textContent,
          rows: [...document.querySelectorAll(".matrix .who")].map((e) => e.textContent),
          hash: location.hash,
        };
      })()`);
    expect(typed.note).toMatch(/^1 of [\d,]+ people match$/);
    expect(typed.rows).toEqual([`${EVIL} </script>&amp; <${EVIL_EMAIL}>`]);
    expect(typed.hash).toBe("#filter=%3Cscript%3E");
    expect(await page!.evaluate("window.__pwned")).toBeUndefined();
    await page!.screenshot(path.join(ARTIFACTS, "filtered-by-box.png"));

    const none = await page!.evaluate<string[]>(`(() => {
        const input = document.getElementById("filter");
        input.value = "nobody-at-all";
        input.dispatchEvent(new Event("change"));
        return [...document.querySelectorAll(".pager .where")].map((e) => e.textContent);
      })()`);
    expect(none).toEqual(["no rows match the filter", "no rows match the filter", "no rows match the filter"]);
  });

  it("shows the changes since the last review with their actors by name and email, times in the zone", async () => {
    // A day later, in the web app: Frances adds an outsider as AI_ADMIN.
    await control(world.emu.url, "POST", "/clock", { advanceDays: 1 });
    await control(world.emu.url, "POST", `/organizations/${SEEDED.org}/members`, {
      email: "eve@outside.example",
      firstName: "Eve",
      lastName: "Outsider",
      permissions: ["AI_ADMIN"],
      actingUserId: SEEDED.users.legalHoldAdmin,
    });
    const next = path.join(world.tmp, "next");
    const r = await review(next, "--firm-domain", "northwind.example", "--time-zone", "Europe/Berlin", "--previous", out);
    expect(r, r.err).toMatchObject({ code: 0 });
    await browser().goto(`file://${path.join(next, "review.html")}`);
    const since = await page!.evaluate<{ heading: string; rows: string[][] }>(`(() => ({
      heading: document.querySelector("#before .since-counts").textContent,
      rows: [...document.querySelectorAll('.view[data-view="gained"] tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
    }))()`);
    expect(since.heading).toMatch(
      /^Since the last review \(as of 2026-11-20 13:00 Europe\/Berlin \(GMT\+1\)\): 1 gained, \d+ lost, \d+ changed\.$/,
    );
    expect(since.rows).toEqual([
      [
        "eve@outside.example",
        "—",
        "member: administers AI features (AI_ADMIN)",
        `changed at 2026-11-21 13:00 Europe/Berlin (GMT+1) by Frances Allen <frances@northwind.example> (user ${SEEDED.users.legalHoldAdmin}) (USER_ADDED)`,
      ],
    ]);
    // Eve, from outside the firm, gained a privilege: the riskiest reason there is, and she is first.
    expect(
      await page!.evaluate(`document.querySelector('#summary tr[data-reason="external-escalated-privileged"] td.n').textContent`),
    ).toBe("1");
    expect(await page!.evaluate(`document.querySelector('.view[data-view="attention"] tbody tr').cells[0].textContent`)).toBe(
      "eve@outside.example",
    );
    await show('.view[data-view="gained"]');
    await page!.screenshot(path.join(ARTIFACTS, "since.png"));
  });
});
