/**
 * Deciding in review.html (issue 55), clicked through in headless Chromium on a seeded review with
 * changes since the last one (an outside-counsel address given LEGAL_HOLD_ADMIN, a member raised
 * to ORG_ADMIN, a DB_ADMIN grant, a removal): the riskiest person first; decisions per line and
 * per person, kept across a reload (local storage keyed by the packet's hash); bulk keep; progress;
 * no save before the reviewer's name and attestation; the saved JSON and CSV applied by
 * `review apply-signoff` to the exported access.ts; a tampered or foreign sign-off refused, naming
 * both hashes. In the engine tier for the browser it starts (as test/engine/reviewHtml.test.ts).
 * Screenshots in test-artifacts/review-decide/.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { findChromium, openChromium, type ChromiumPage } from "../../harness/chromium";
import { sha256 } from "../../cli/review/manifest";
import { control } from "../support/emulatorHttp";
import { useReviewEmulator } from "../cli/reviewEmulator";
import { runCli } from "../cli/runCli";

const { world, review } = useReviewEmulator("decide");
const ARTIFACTS = path.join(__dirname, "../../test-artifacts/review-decide");
const U = SEEDED.users;
const ORG = SEEDED.org;
const OUTSIDER = "counsel@outside.example";

describe("deciding in review.html, in headless Chromium", () => {
  let first = "";
  let second = "";
  let access = "";
  let downloads = "";
  let page: ChromiumPage;
  const url = () => `file://${path.join(second, "review.html")}`;
  const js = <T>(expression: string) => page.evaluate<T>(expression);
  /** Sets a control of the page (a select's or an input's value, a checkbox) and fires its events. */
  /** Sets a control, after opening a row's decision (an undecided row shows a button that opens its select). */
  const set = (selector: string, value: string | boolean) =>
    js(`(() => {
      const row = ${JSON.stringify(selector)}.replace(/ (select|input)[.#][\\w-]+$/, "");
      if (row !== ${JSON.stringify(selector)}) document.querySelector(row + " button.decide")?.click();
      const e = document.querySelector(${JSON.stringify(selector)});
      if (typeof ${JSON.stringify(value)} === "boolean") e.checked = ${JSON.stringify(value)}; else e.value = ${JSON.stringify(value)};
      e.dispatchEvent(new Event("input"));
      e.dispatchEvent(new Event("change"));
    })()`);
  const line = (key: string, scope: string) => `tr[data-line="${ORG}|${key}|${scope}"]`;
  const progress = () => js<string>(`document.getElementById("progress").textContent`);
  const waitForFile = async (name: string) => {
    const file = path.join(downloads, name);
    for (let i = 0; i < 200 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
    expect(fs.existsSync(file), `${name} downloaded`).toBe(true);
    return file;
  };
  const accessCopy = (name: string) => {
    const file = path.join(world.tmp, name, "access.ts");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(access, file);
    return file;
  };
  const apply = (signoff: string, packet: string, accessFile: string) =>
    runCli(["review", "apply-signoff", "--signoff", signoff, "--packet", packet, "--access", accessFile]);

  beforeAll(async () => {
    const chromium = findChromium();
    expect(chromium, "headless Chromium is needed: apt-get install -y chromium (or set CHROMIUM to its path)").toBeDefined();
    first = path.join(world.tmp, "first");
    expect(await review(first, "--firm-domain", "northwind.example")).toMatchObject({ code: 0 });
    // A day later, in the web app: outside counsel made LEGAL_HOLD_ADMIN, a member raised to ORG_ADMIN,
    // a DB_ADMIN grant, a removal.
    await control(world.emu.url, "POST", "/clock", { advanceDays: 1 });
    const ok = (r: { status: number; body: unknown }) => expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    ok(
      await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
        email: OUTSIDER,
        firstName: "Zoë",
        lastName: "Ångström",
        permissions: ["LEGAL_HOLD_ADMIN"],
        actingUserId: U.legalHoldAdmin,
      }),
    );
    ok(await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${U.member}`, { permissions: ["ORG_ADMIN"] }));
    ok(await control(world.emu.url, "PUT", `/databases/${SEEDED.databases.open}/users/${U.aiAdmin}`, { permissions: ["DB_ADMIN"] }));
    ok(await control(world.emu.url, "DELETE", `/databases/${SEEDED.databases.open}/users/${U.multiOrgMember}`));
    second = path.join(world.tmp, "second");
    const r = await review(second, "--firm-domain", "northwind.example", "--previous", first);
    expect(r, r.err).toMatchObject({ code: 0 });
    const project = path.join(world.tmp, "access");
    const common = ["--base-url", world.emu.url, "--api-key-file", world.keyFile, "--requests-per-second", "1000", "-q"];
    expect(await runCli(["export", ...common, "--out", project, "--project", "decide"])).toMatchObject({ code: 0 });
    access = path.join(project, "access.ts");
    downloads = path.join(world.tmp, "downloads");
    page = await openChromium({ binary: chromium!, width: 1400, height: 1000 });
    await page.downloadTo(downloads);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await page?.close();
  });

  it("puts the riskiest person first: outside counsel given a legal-hold privilege since the last review", async () => {
    await page.goto(url());
    expect(await js(`document.documentElement.dataset.failed`)).toBeUndefined();
    const rows = await js<string[][]>(
      `[...document.querySelectorAll('.view[data-view="attention"] tbody tr')].map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent))`,
    );
    expect(rows[0]).toEqual([OUTSIDER, "Zoë Ångström", "external-escalated-privileged"]);
    expect(rows[1]![0]).toBe("alan@northwind.example");
    expect(rows[1]![2]).toMatch(/^escalated-privileged/);
    // The top of the page: what was not reviewed, the changes, the walls' status, before the decisions.
    const top = await js<string>(`document.getElementById("before").textContent`);
    expect(top).toContain("Not reviewed: database 2002");
    expect(top).toContain("Ethical walls: not checked (no stack given: pass --stack or --stack-state).");
    expect(top).toMatch(/Since the last review \(as of [^)]+\): 2 gained, 1 lost, 1 changed\./);
    expect(await progress()).toMatch(/^0 of \d+ decided$/);
    await page.screenshot(path.join(ARTIFACTS, "top.png"));
  });

  it("records decisions per line and per person, and restores them after a reload", async () => {
    await set(`${line(OUTSIDER, "organization")} select.decision`, "remove");
    await set(`${line(OUTSIDER, "organization")} input.why`, "outside counsel; the matter closed");
    await set(`${line("alan@northwind.example", "organization")} select.decision`, "change");
    await set(`${line("alan@northwind.example", "organization")} input.perms`, "");
    await set(`${line("alan@northwind.example", "organization")} input.why`, "raised in the web app; not needed");
    // A person: every line of theirs, from the summary's table.
    const personRow = await js<number>(
      `[...document.querySelectorAll('.view[data-view="attention"] tbody tr')].findIndex((tr) => tr.cells[0].textContent === "ken@northwind.example")`,
    );
    expect(personRow).toBeGreaterThanOrEqual(0);
    const person = `.view[data-view="attention"] tbody tr:nth-child(${personRow + 1})`;
    await set(`${person} select.person-decision`, "remove");
    await set(`${person} input.why`, "moved to the Paris office");
    const hedyLines = await js<number>(`document.querySelectorAll('tr[data-line^="${ORG}|ken@northwind.example|"]').length`);
    expect(hedyLines).toBe(2);
    const decided = await progress();
    expect(decided).toMatch(new RegExp(`^${2 + hedyLines} of \\d+ decided$`));
    await js(`document.querySelector('${line(OUTSIDER, "organization")}').scrollIntoView(); window.scrollBy(0, -120)`);
    await page.screenshot(path.join(ARTIFACTS, "decided.png"));

    await page.goto(url());
    expect(await progress()).toBe(decided);
    const restored = await js<unknown[]>(`[
      document.querySelector('${line(OUTSIDER, "organization")} select.decision').value,
      document.querySelector('${line(OUTSIDER, "organization")} input.why').value,
      document.querySelector('${line("alan@northwind.example", "organization")} select.decision').value,
      document.querySelector('${line("alan@northwind.example", "organization")} input.perms').value,
      document.querySelector('${person} select.person-decision').value,
      document.querySelector('${line("ken@northwind.example", "organization")}').className,
    ]`);
    expect(restored).toEqual(["remove", "outside counsel; the matter closed", "change", "", "remove", "decided"]);
  });

  it("keeps in bulk what needs no decision, and counts it", async () => {
    const before = Number((await progress()).split(" ")[0]);
    const calm = Number((await js<string>(`document.getElementById("bulk-note").textContent`)).split(" ")[0]);
    expect(calm).toBeGreaterThan(0);
    await js(`document.getElementById("bulk-keep").click()`);
    expect(Number((await progress()).split(" ")[0])).toBe(before + calm);
    // Ada (an org admin who acts, unchanged) is kept; the outsider's removal stands.
    expect(await js(`document.querySelector('${line("ada@northwind.example", "organization")} select.decision').value`)).toBe("keep");
    expect(await js(`document.querySelector('${line(OUTSIDER, "organization")} select.decision').value`)).toBe("remove");
  });

  it("saves nothing before the reviewer's name and attestation; then saves JSON and CSV that apply-signoff applies", async () => {
    await set("#reviewer", "Åsa Öberg <asa@northwind.example>");
    const gated = await js<{ disabled: boolean[]; note: string }>(`(() => {
      document.getElementById("save-json").click();
      return { disabled: ["save-json", "save-csv"].map((id) => document.getElementById(id).disabled), note: document.getElementById("save-note").textContent };
    })()`);
    expect(gated.disabled).toEqual([true, true]);
    expect(gated.note).toBe("Enter your name and tick the attestation to save.");
    expect(fs.existsSync(downloads) ? fs.readdirSync(downloads) : []).toEqual([]);
    await set("#attest", true);
    await js(`document.getElementById("save-json").click()`);
    await js(`document.getElementById("save-csv").click()`);
    const day = "2026-11-21";
    const json = await waitForFile(`signoff-${day}.json`);
    const csv = await waitForFile(`signoff-${day}.csv`);
    await js(`document.getElementById("decide").scrollIntoView()`);
    await page.screenshot(path.join(ARTIFACTS, "saved.png"));

    const signoff = JSON.parse(fs.readFileSync(json, "utf8"));
    expect(signoff.packet.sha256).toBe(sha256(fs.readFileSync(path.join(second, "review.json"))));
    expect(signoff.packet.sha256).toBe(JSON.parse(fs.readFileSync(path.join(second, "manifest.json"), "utf8")).files["review.json"]);
    expect(signoff.reviewer).toBe("Åsa Öberg <asa@northwind.example>");
    expect(signoff.attestation).toMatch(/^I reviewed each line of access/);
    expect([...fs.readFileSync(csv).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);

    const byJson = accessCopy("by-json");
    const a = await apply(json, second, byJson);
    expect(a, a.err).toMatchObject({ code: 0 });
    expect(a.out).toMatch(/: 3 removed, 1 changed, \d+ kept; \d+ undecided\./);
    expect(a.out).toContain(`remove ${OUTSIDER} on organization of organization ${ORG}`);
    expect(a.out).toContain(`change alan@northwind.example on organization of organization ${ORG}: ["ORG_ADMIN"] -> []`);
    const text = fs.readFileSync(byJson, "utf8");
    expect(text).toContain("signed off by Åsa Öberg <asa@northwind.example>");
    expect(text).toContain("outside counsel; the matter closed");
    const byCsv = accessCopy("by-csv");
    const c = await apply(csv, second, byCsv);
    expect(c, c.err).toMatchObject({ code: 0 });
    expect(fs.readFileSync(byCsv, "utf8")).toBe(text);
  });

  it("refuses a tampered or a foreign sign-off, naming both hashes", async () => {
    const json = path.join(downloads, "signoff-2026-11-21.json");
    const ours = sha256(fs.readFileSync(path.join(second, "review.json")));
    // Made against this packet, applied to the one before: refused.
    const foreign = await apply(json, first, accessCopy("foreign"));
    expect(foreign.code).toBe(2);
    expect(foreign.err).toContain(`names review.json SHA-256 ${ours}`);
    expect(foreign.err).toContain(`has ${sha256(fs.readFileSync(path.join(first, "review.json")))}`);
    // Its packet's hash edited: refused, and nothing written.
    const edited = JSON.parse(fs.readFileSync(json, "utf8"));
    edited.packet.sha256 = "0".repeat(64);
    const tampered = path.join(world.tmp, "tampered.json");
    fs.writeFileSync(tampered, JSON.stringify(edited));
    const target = accessCopy("tampered");
    const t = await apply(tampered, second, target);
    expect(t.code).toBe(2);
    expect(t.err).toContain(`names review.json SHA-256 ${"0".repeat(64)}, and ${path.join(second, "review.json")} has ${ours}`);
    expect(fs.readFileSync(target, "utf8")).toBe(fs.readFileSync(access, "utf8"));
  });
});
