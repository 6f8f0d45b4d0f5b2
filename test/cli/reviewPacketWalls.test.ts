/**
 * The wall compliance report in the review packet (issue 37): given the stack, `review` writes
 * the report `review walls` writes for the period ending at "as of" (by default the 30 days before
 * it; after --previous, the span since that review): a section of review.md, review.json's
 * `walls` and walls.csv, listed in manifest.json, which `review verify` accepts; two runs on an
 * unchanged world are byte-identical. The month here has two breaches of a matter-team wall: one
 * made in the web application and removed by the wall (its state keeps the removal), one that
 * cannot be fixed (an outsider made org admin of the organization, whose org admins reach the
 * database). Without a stack the packet says in one line that no wall is known.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { NO_WALLS_KNOWN } from "../../cli/review/packetWalls";
import { SEEDED } from "../../emulator";
import { control } from "../support/emulatorHttp";
import { T0, useReviewEmulator } from "./reviewEmulator";
import { runCli } from "./runCli";
import { ADA_EXCEPTION, writeWallStack } from "./wallStack";

const DB = SEEDED.databases.open;
const U = SEEDED.users;
const DAY = 86_400_000;
const { world, review } = useReviewEmulator("packet-walls");
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");
const filesOf = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, read(dir, f)]),
  );

/** The wall's stack export in this file's folder (wallStack.ts). */
function stackState(name: string, removedAt?: string): string {
  return writeWallStack(path.join(world.tmp, name), removedAt);
}

const advance = async (days: number) => expect((await control(world.emu.url, "POST", "/clock", { advanceDays: days })).status).toBe(200);

describe("review: the wall compliance report in the packet", () => {
  it("a month with two breaches (one fixed by the wall, one unenforceable) in review.md, review.json and walls.csv; verify passes; byte-identical", async () => {
    // The emulator's clock stands at T0 and moves only when told: each step's instant is known.
    await advance(2);
    const madeAt = new Date(T0 + 2 * DAY).toISOString();
    // In the web application, Ada (the organization's first org admin) gives Linus DB_UPLOAD on 2001.
    expect((await control(world.emu.url, "PUT", `/databases/${DB}/users/${U.unaffiliated}`, { permissions: ["DB_UPLOAD"] })).status).toBe(
      200,
    );
    await advance(3);
    // The wall's up removes it through the API (which logs nothing); the wall's state keeps the removal.
    const removedAt = new Date(T0 + 5 * DAY).toISOString();
    world.emu.store.databases.removeUser(DB, U.unaffiliated);
    await advance(5);
    const orgAdminAt = new Date(T0 + 10 * DAY).toISOString();
    const patch = { permissions: ["AI_ADMIN", "ORG_ADMIN"] };
    expect((await control(world.emu.url, "PATCH", `/organizations/${SEEDED.org}/members/${U.aiAdmin}`, patch)).status).toBe(200);
    await advance(20);
    const asOf = new Date(T0 + 30 * DAY).toISOString();
    const state = stackState("state.json", removedAt);

    const out = path.join(world.tmp, "packet");
    const r = await review(out, "--as-of", asOf, "--stack-state", state, "--json");
    expect(r, r.err).toMatchObject({ code: 0 });
    const summary = JSON.parse(r.out);
    expect(summary.requests).toBeLessThanOrEqual(summary.requestBound);
    expect(fs.readdirSync(out).sort()).toEqual(["manifest.json", "review.csv", "review.html", "review.json", "review.md", "walls.csv"]);

    // review.json's walls: the report `review walls` writes for the same period, from the same code.
    const since = new Date(T0).toISOString(); // 30 days before "as of"
    const standalone = path.join(world.tmp, "standalone");
    const w = await runCli([
      "review",
      "walls",
      "--base-url",
      world.emu.url,
      "--api-key-file",
      world.keyFile,
      "--requests-per-second",
      "1000",
      "--stack-state",
      state,
      "--since",
      since,
      "--until",
      asOf,
      "--out",
      standalone,
    ]);
    expect(w, w.err).toMatchObject({ code: 0 });
    const packet = JSON.parse(read(out, "review.json"));
    expect(packet.walls).toEqual(JSON.parse(read(standalone, "walls.json")));
    expect(read(out, "walls.csv")).toBe(read(standalone, "walls.csv"));
    expect(packet.walls).toMatchObject({ since, until: asOf, source: `state file ${state}` });
    expect(packet.walls.walls).toEqual([
      expect.objectContaining({
        name: "nvc-team",
        form: "team",
        breaches: [
          {
            databaseId: DB,
            userId: U.unaffiliated,
            email: "linus@example.com",
            permissions: ["DB_UPLOAD"],
            madeAt,
            madeBy: `Ada Lovelace <ada@northwind.example> (user ${U.orgAdmin})`,
            fixedAt: removedAt,
            fixedBy: 'the wall (onBreach "remove")',
            status: "fixed",
          },
        ],
        unenforceable: [
          expect.objectContaining({
            userId: U.aiAdmin,
            email: "ken@northwind.example",
            madeAt: orgAdminAt,
            madeBy: `Ada Lovelace <ada@northwind.example> (user ${U.orgAdmin})`,
          }),
        ],
        exceptionsInForce: [ADA_EXCEPTION],
      }),
    ]);
    expect(
      read(out, "walls.csv")
        .trim()
        .split("\n")
        .map((l) => l.split(",").slice(0, 3).join(",")),
    ).toEqual([
      "wall,kind,person",
      "nvc-team,breach,linus@example.com",
      "nvc-team,unenforceable,ken@northwind.example",
      "nvc-team,exception,ada@northwind.example",
    ]);

    // review.md: a section of the same report, its times as the rest of review.md shows them (--time-zone, named).
    const md = read(out, "review.md");
    expect(md).toContain("## Ethical walls: compliance report");
    expect(md).toContain(`Period: 2026-11-20 12:00 UTC to 2026-12-20 12:00 UTC. Walls of state file ${state}.`);
    expect(md).toContain("### nvc-team: matter team on database 2001 (NvC matter team)");
    expect(md).toContain("Breaches: 1 (1 fixed, 0 open). Unenforceable: 1. Exceptions in force: 1.");
    expect(md).toContain(
      '| linus@example.com (user 1011) | 2001 | DB_UPLOAD | 2026-11-22 12:00 UTC | Ada Lovelace <ada@northwind.example> (user 1001) | 2026-11-25 12:00 UTC | the wall (onBreach "remove") | fixed |',
    );
    expect(md).toContain(
      "- ken@northwind.example (user 1010) on database 2001: an org admin of organization 102, and database 2001 keeps orgAdminAccess on",
    );
    expect(md).toContain("; made org admin at 2026-11-30 12:00 UTC by Ada Lovelace <ada@northwind.example> (user 1001).");
    expect(md).toContain(
      "- ada@northwind.example (approved by grace@northwind.example: administers the platform; client consent NVC-1; until 2099-01-01)",
    );
    expect(md).not.toContain(NO_WALLS_KNOWN);

    // review.html: the same report, escaped, times in the same zone.
    const page = read(out, "review.html");
    expect(page).toContain(`<section id="walls">`);
    expect(page).toContain("<h3>nvc-team: matter team on database 2001 (NvC matter team)</h3>");
    expect(page).toContain("<p>Breaches: 1 (1 fixed, 0 open). Unenforceable: 1. Exceptions in force: 1.</p>");
    expect(page).toContain(
      `<tr class="fixed"><td>linus@example.com (user 1011)</td><td>2001</td><td>DB_UPLOAD</td><td>2026-11-22 12:00 UTC</td><td>Ada Lovelace &lt;ada@northwind.example&gt; (user 1001)</td><td>2026-11-25 12:00 UTC</td><td>the wall (onBreach &quot;remove&quot;)</td><td>fixed</td></tr>`,
    );
    expect(page).toContain("ken@northwind.example (user 1010) on database 2001: an org admin of organization 102");
    expect(page).toContain("ada@northwind.example (approved by grace@northwind.example: administers the platform; client consent NVC-1");

    // The manifest lists walls.csv with its digest, and the report's own reads apart from the population's.
    const manifest = JSON.parse(read(out, "manifest.json"));
    expect(Object.keys(manifest.files)).toEqual(["review.csv", "review.html", "review.json", "review.md", "walls.csv"]);
    expect(manifest.agrees).toBe(true);
    expect(manifest.wallReads.map((x: { operation: string }) => x.operation).sort()).toEqual([
      "GetDatabase",
      "GetDatabaseUsers",
      "GetOrganizationUsers",
    ]);
    // Every request is a page of one list or the other (the refused database read aside).
    const pages = (xs: { pages: number[] }[]) => xs.reduce((n, x) => n + x.pages.length, 0);
    expect(pages(manifest.reads) + pages(manifest.wallReads)).toBe(manifest.requests - 1);
    const verified = await runCli(["review", "verify", out]);
    expect(verified, verified.err).toMatchObject({ code: 0 });
    expect(verified.out).toContain("the packet is as the review wrote it: 5 files match manifest.json");

    // The same world, the same "as of": the same bytes, manifest included.
    const first = filesOf(out);
    expect(await review(out, "--as-of", asOf, "--stack-state", state, "--json", "--force")).toMatchObject({ code: 0 });
    expect(filesOf(out)).toEqual(first);

    // The next review, with --previous: the period is the span since the last one, in which nothing was made.
    await advance(1);
    const next = path.join(world.tmp, "next");
    expect(await review(next, "--stack-state", state, "--previous", out)).toMatchObject({ code: 0 });
    const later = JSON.parse(read(next, "review.json")).walls;
    expect(later.since).toBe(new Date(T0 + 30 * DAY + 1).toISOString());
    expect(later.walls[0].breaches).toEqual([]);
    // Ken is still org admin: unenforceable, made before the period.
    expect(later.walls[0].unenforceable).toEqual([expect.not.objectContaining({ madeAt: expect.anything() })]);
  });

  it("without a stack the packet says in one line that no wall is known; a stack without walls says it declares none", async () => {
    const out = path.join(world.tmp, "no-stack");
    expect(await review(out)).toMatchObject({ code: 0 });
    const md = read(out, "review.md");
    // Said once, at the top: not checked, and why (not "none known").
    expect(md.split("\n").filter((l) => l.includes("Ethical walls"))).toEqual([
      "**Ethical walls:** not checked (no stack given: pass --stack or --stack-state).",
    ]);
    expect(md.indexOf("**Ethical walls:**")).toBeLessThan(md.indexOf("## Summary"));
    expect(read(out, "review.html")).toContain(NO_WALLS_KNOWN.replace(/\*\*/g, "").slice(0, 40));
    expect(JSON.parse(read(out, "review.json")).walls).toBeUndefined();
    expect(fs.readdirSync(out).sort()).toEqual(["manifest.json", "review.csv", "review.html", "review.json", "review.md"]);

    const state = stackState("empty.json");
    const none = path.join(world.tmp, "no-walls");
    expect(await review(none, "--stack-state", state)).toMatchObject({ code: 0 });
    expect(read(none, "review.md")).toContain(`**Ethical walls:** none: state file ${state} declares no ethical wall.`);
    expect(read(none, "review.md")).toContain(`**Ethical walls:** checked: state file ${state} declares no ethical wall.`);
    expect(read(none, "walls.csv")).toBe("wall,kind,person,userId,databaseId,permissions,madeAt,madeBy,fixedAt,fixedBy,status,detail\n");
    // Written again without the stack, the folder holds no walls.csv of the earlier packet.
    expect(await review(none, "--force")).toMatchObject({ code: 0 });
    expect(fs.existsSync(path.join(none, "walls.csv"))).toBe(false);
    expect((await runCli(["review", "verify", none])).code).toBe(0);
  });

  it("refuses --walls-since without a stack, and one not before as of, naming the option", async () => {
    const out = path.join(world.tmp, "refused");
    const noStack = await review(out, "--walls-since", "2026-10-01T00:00:00Z");
    expect(noStack.code).toBe(2);
    expect(noStack.err).toContain("--walls-since needs --stack NAME or --stack-state FILE");
    const late = await review(
      out,
      "--stack-state",
      stackState("late.json"),
      "--as-of",
      "2026-10-01T00:00:00Z",
      "--walls-since",
      "2026-10-02T00:00:00Z",
    );
    expect(late.code).toBe(2);
    expect(late.err).toContain('--walls-since must be before "as of" (2026-10-01T00:00:00.000Z)');
  });
});
