/**
 * `pulumi-reviewadmin review` against the access program's code (issue 27): a stack brought up
 * by the real engine (a roster with an end date, a grant with one, an ethical wall), a grant made
 * across the wall in the web app, then the review given the stack (`--stack-state` holding
 * `pulumi stack export`'s output, and `--stack` running that command itself): each line of
 * access names the resources declaring it and its end date, and the packet flags not-in-code,
 * expiring-soon, walled and wall-breach.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { runCli } from "../cli/runCli";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";
import { ORDERED } from "../support/scenario";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const U = SEEDED.users;
const DAY = 86_400_000;
const world = useProgramWorld("review-code");

describe("review judged against the stack's code", ORDERED, () => {
  const dir = programFolder("review-code-");
  const day = (offset: number) => new Date(world.emu.store.clock.now() + offset * DAY).toISOString().slice(0, 10);
  const person = (packet: any, key: string) => packet.organizations.find((o: any) => o.id === ORG).people.find((p: any) => p.key === key);

  async function review(extra: string[], env: Record<string, string> = {}) {
    const out = fs.mkdtempSync(path.join(dir, "packet-"));
    const keyFile = path.join(dir, "key");
    fs.writeFileSync(keyFile, world.emu.keys.orgAdmin!);
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      const r = await runCli([
        "review",
        "--base-url",
        world.emu.url,
        "--api-key-file",
        keyFile,
        "--requests-per-second",
        "1000",
        "--out",
        out,
        "-q",
        ...extra,
      ]);
      expect(r, r.err).toMatchObject({ code: 0 });
      return {
        packet: JSON.parse(fs.readFileSync(path.join(out, "review.json"), "utf8")),
        csv: fs.readFileSync(path.join(out, "review.csv"), "utf8"),
      };
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  }

  it("flags what the code does not declare, access ending soon, walled people and a grant across their wall", async () => {
    const s = world.freshStack();
    const alanEnds = day(5);
    const margaretEnds = day(40);
    await s.up(() => {
      new reviewadmin.OrganizationMembers("org", {
        organizationId: ORG,
        mode: "additive",
        onUnmanaged: "report",
        members: {
          "frances@northwind.example": { permissions: ["LEGAL_HOLD_ADMIN"] },
          "alan@northwind.example": { permissions: [], expiresOn: alanEnds },
        },
      });
      new reviewadmin.DatabaseUserPermissions("margaret", {
        databaseId: DB,
        userId: U.multiOrgMember,
        permissions: ["DB_UPLOAD"],
        expiresOn: margaretEnds,
      });
      new reviewadmin.EthicalWall("nvc-wall", { databaseIds: [DB], people: ["ken@northwind.example"], reason: "Ken advised Contoso" });
    });
    // In the web app, behind the code's back: Ken gets DB_UPLOAD on the walled database.
    expect(
      (await control(world.emu.url, "PUT", `/databases/${DB}/users/${U.aiAdmin}`, { permissions: ["DB_UPLOAD"] })).status,
    ).toBeLessThan(300);

    const exported = await s.cli(["stack", "export", "--file", path.join(dir, "state.json")]);
    expect(exported.code, exported.stderr).toBe(0);
    const { packet, csv } = await review(["--stack-state", path.join(dir, "state.json")]);

    expect(packet.stack).toEqual({ source: `state file ${path.join(dir, "state.json")}`, resources: 3 });
    expect(packet.notJudged).toEqual([]);
    expect(packet.expiringDays).toBe(14);
    const org = `OrganizationMembers "org"`;
    expect(person(packet, "frances@northwind.example").inCode).toEqual({
      lines: [{ scope: "organization", declaredBy: [org] }],
      walls: [],
    });
    expect(person(packet, "frances@northwind.example").flags).not.toContain("not-in-code");
    expect(person(packet, "alan@northwind.example").inCode.lines).toEqual([{ scope: "organization", declaredBy: [org], endsOn: alanEnds }]);
    expect(person(packet, "alan@northwind.example").flags).toContain("expiring-soon");
    // Margaret: her membership is nobody's in the code; her grant is, ending in 40 days (not soon).
    expect(person(packet, "margaret@northwind.example").inCode.lines).toEqual([
      { scope: "organization", declaredBy: [], notInCode: ["CLOUD_MANAGEMENT_ADMIN"] },
      { scope: `database ${DB}`, declaredBy: [`DatabaseUserPermissions "margaret"`], endsOn: margaretEnds },
    ]);
    expect(person(packet, "margaret@northwind.example").flags).toEqual(expect.arrayContaining(["not-in-code"]));
    expect(person(packet, "margaret@northwind.example").flags).not.toContain("expiring-soon");
    expect(person(packet, "ada@northwind.example").flags).toContain("not-in-code");
    expect(person(packet, "ken@northwind.example").inCode.walls).toEqual([`EthicalWall "nvc-wall" (Ken advised Contoso)`]);
    expect(person(packet, "ken@northwind.example").flags).toEqual(expect.arrayContaining(["not-in-code", "walled", "wall-breach"]));
    expect(person(packet, "frances@northwind.example").flags).not.toContain("walled");
    expect(csv).toContain(`,database ${DB},Northwind v. Contoso,granted,DB_UPLOAD,`);
    expect(csv.split("\r\n").find((l) => l.startsWith("102,Northwind Legal,margaret@") && l.includes(`database ${DB}`))).toMatch(
      new RegExp(`,"?DatabaseUserPermissions ""margaret"""?,${margaretEnds},,,,,$`),
    );

    // --stack runs `pulumi stack export` itself; a longer --expiring-days reaches Margaret's end date.
    const access = s.cliAccess();
    const direct = await review(["--stack", access.name, "--expiring-days", "60"], access.env);
    expect(direct.packet.stack).toEqual({ source: `stack ${access.name}`, resources: 3 });
    expect(person(direct.packet, "margaret@northwind.example").flags).toContain("expiring-soon");
    const { source: _a, ...fromFile } = packet.stack;
    const { source: _b, ...fromStack } = direct.packet.stack;
    expect(fromStack).toEqual(fromFile);
  });
});
