/**
 * The review packet for the people who sign it (issue 36): review.md opens with a summary naming
 * exactly the people who need attention and why, actors of changes by name and email, times in
 * the reviewer's time zone (--time-zone, always named), permissions in plain words with the API's
 * name beside.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { ReviewPacket } from "../../cli/review/format";
import { attentionOf, timeText } from "../../cli/review/render";
import { control } from "../support/emulatorHttp";
import { useReviewEmulator } from "./reviewEmulator";

const U = SEEDED.users;
const { world, review } = useReviewEmulator("readers");
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");

/** The rows of the summary's attention table of review.md, in order: person -> the reasons named. */
function summaryRows(md: string): Map<string, string[]> {
  const summary = md.slice(md.indexOf("## Summary"), md.indexOf("## ", md.indexOf("## Summary") + 3));
  const rows = new Map<string, string[]>();
  for (const line of summary.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| person "))) {
    const [person, , why] = line.split(" | ");
    rows.set(
      person!.slice(2),
      why!.split("<br>").map((w) => w.split(":")[0]!),
    );
  }
  return rows;
}

describe("review.md for the people who sign it", () => {
  it("opens with a summary of exactly the people who need attention and why; actors by name; times in the chosen zone, labelled", async () => {
    const first = path.join(world.tmp, "first");
    expect(await review(first, "--firm-domain", "northwind.example")).toMatchObject({ code: 0 });
    // Since then, in the web app: an outsider added as AI_ADMIN, Alan (no permissions) given LEGAL_HOLD_ADMIN.
    await control(world.emu.url, "POST", "/clock", { advanceDays: 1 });
    await control(world.emu.url, "POST", `/organizations/${SEEDED.org}/members`, {
      email: "eve@outside.example",
      firstName: "Eve",
      lastName: "Outsider",
      permissions: ["AI_ADMIN"],
      actingUserId: U.legalHoldAdmin,
    });
    await control(world.emu.url, "PATCH", `/organizations/${SEEDED.org}/members/${U.member}`, {
      permissions: ["LEGAL_HOLD_ADMIN"],
      actingUserId: U.multiOrgMember,
    });
    const second = path.join(world.tmp, "second");
    const r = await review(second, "--firm-domain", "northwind.example", "--previous", first, "--time-zone", "Europe/Berlin");
    expect(r, r.err).toMatchObject({ code: 0 });
    const md = read(second, "review.md");
    const packet = JSON.parse(read(second, "review.json")) as ReviewPacket;
    const org = packet.organizations[0]!;

    // What was not reviewed, the changes and the walls' status come first; then the summary, riskiest
    // first by the one severity order; the legend last.
    expect(md.indexOf("## Before you sign")).toBeLessThan(md.indexOf("## Summary"));
    expect(md.indexOf("**Ethical walls:** not checked (no stack given: pass --stack or --stack-state)")).toBeLessThan(
      md.indexOf("## Summary"),
    );
    expect(md.indexOf("**Changed** (")).toBeLessThan(md.indexOf("## Summary"));
    expect(md.indexOf("## Summary")).toBeLessThan(md.indexOf("### Everyone with access"));
    expect(md.indexOf("### Everyone with access")).toBeLessThan(md.indexOf("## How to read this review"));
    const expected = new Map(attentionOf(org).map((x) => [x.person.key, [...x.why]] as const));
    expect(summaryRows(md)).toEqual(expected);
    // The riskiest person first: the outsider given an administrative permission since the last review.
    expect([...summaryRows(md)][0]).toEqual(["eve@outside.example", ["external-escalated-privileged"]]);
    expect(summaryRows(md).get("alan@northwind.example")).toEqual(["escalated-privileged"]);
    // The command's summary names the riskiest by the same order.
    expect(r.out).toContain(
      `: ${expected.size} need attention, riskiest first: eve@outside.example (external-escalated-privileged), alan@northwind.example (escalated-privileged)`,
    );
    // Eve was added the day before: not stale. A privilege alone is no reason: the seeded admins who act are not listed.
    expect(org.people.find((p) => p.key === "eve@outside.example")!.flags).not.toContain("stale");
    for (const p of org.people.filter((x) => !expected.has(x.key))) expect(summaryRows(md).has(p.key)).toBe(false);
    expect(org.people.filter((p) => p.flags.includes("privileged")).length).toBeGreaterThan(expected.size - 3);

    // Times in the zone chosen, to the minute, named; the actor by name and email.
    expect(md).toContain("# Access review as of 2026-11-21 13:00 Europe/Berlin (GMT+1)");
    expect(md).toContain("Times are in Europe/Berlin (--time-zone); review.csv and review.json keep them in UTC.");
    expect(md).toContain(
      `changed at 2026-11-21 13:00 Europe/Berlin (GMT+1) by Frances Allen <frances@northwind.example> (user ${U.legalHoldAdmin}) (USER_ADDED)`,
    );
    expect(md).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}Z/);
    // Permissions in plain words, the API's name beside.
    expect(md).toContain("Northwind v. Contoso (database 2001): uploads documents (DB_UPLOAD)");
    expect(md).toContain("member: administers AI features (AI_ADMIN)");
    // The tools' files keep UTC.
    expect(packet.asOf).toBe("2026-11-21T12:00:00.000Z"); // the service's clock to the second
  });

  it("--time-zone takes IANA zones (any case), refuses others naming the option and the rule", async () => {
    expect(timeText("2026-07-01T12:00:00.000Z", { timeZone: "America/New_York" })).toBe("2026-07-01 08:00 America/New_York (GMT-4)");
    expect(timeText("2026-07-01T12:00:00.000Z")).toBe("2026-07-01 12:00 UTC");
    const lower = path.join(world.tmp, "lower");
    expect(await review(lower, "--time-zone", "asia/tokyo")).toMatchObject({ code: 0 });
    expect(read(lower, "review.md")).toContain("Asia/Tokyo (GMT+9)");
    const bad = await review(path.join(world.tmp, "bad"), "--time-zone", "Mars/Olympus");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--time-zone must be an IANA time zone such as Europe/Berlin, America/New_York or UTC, got 'Mars/Olympus'");
  });
});
