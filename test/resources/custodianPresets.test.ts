/**
 * CustodianDirectorySync reading real-shaped exports through the real plugin against the
 * emulator: each preset synced into a directory and checked there, the plan-time report in the
 * plugin's log (rows not synced, repeats, how columns were mapped), a mis-mapped export refused
 * at preview before anything is sent (and its fixes), an unmapped export pointed to its preset,
 * reordered rows as no change, and the new inputs' rules.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { startProviderWorld, type ProviderWorld, type Run } from "../support/providerWorld";
import { csvFile, ENTRA_EXPORT, GOOGLE_EXPORT, M365_EXPORT, OKTA_EXPORT, WORKDAY_EXPORT } from "../support/custodianExports";
import { ORDERED } from "../support/scenario";

const KIND = "CustodianDirectorySync";
let world: ProviderWorld;
let tmp: string;
const dirs: Record<string, number> = {};

beforeAll(async () => {
  world = await startProviderWorld();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cds-presets-"));
  for (const name of ["entra", "google", "okta", "workday", "m365", "raw"]) {
    dirs[name] = world.emu.store.directories.create({ organizationId: SEEDED.org, name: `From ${name}` }).id;
  }
});
afterAll(async () => {
  await world?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const res = (run: Run, name: string) => run.resource(KIND, name);
const syncs = () => world.emu.traffic.log.list("PostDirectoryCustodians").length;
const people = (dir: string) => new Map(world.emu.store.directories.get(dirs[dir]!).custodians.map((c) => [c.email, c]));
function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, text);
  return p;
}

async function failuresOf(run: Run, inputs: Record<string, unknown>): Promise<string> {
  const d = await res(run, "bad");
  const { failures } = await run.plugin.check(d.urn, {}, { __provider: d.provider, ...inputs });
  return failures.map((f) => `${f.property} | ${f.reason}`).join("\n");
}

const label = (dir: string) => `CustodianDirectorySync of directory ${dirs[dir]}`;

describe("CustodianDirectorySync from exports", ORDERED, () => {
  it("syncs an export of each kind through its preset; the plan-time report names the rows not synced", async () => {
    const entraPath = file("entra-users.csv", ENTRA_EXPORT);
    const oktaPath = file("okta-users.csv", OKTA_EXPORT);
    const workdayPath = file("workday-workers.csv", WORKDAY_EXPORT);
    await world.run(async (run) => {
      const [entra, google, okta, workday] = await Promise.all([
        (await res(run, "entra")).up({ directoryId: dirs.entra, csvPath: entraPath, preset: "entra-id" }),
        (await res(run, "google")).up({ directoryId: dirs.google, csv: GOOGLE_EXPORT, preset: "google-workspace" }),
        (await res(run, "okta")).up({ directoryId: dirs.okta, csvPath: oktaPath, preset: "okta", columns: { userPrincipalName: "login" } }),
        (await res(run, "workday")).up({ directoryId: dirs.workday, csvPath: workdayPath, preset: "workday", dateFormat: "MM/dd/yyyy" }),
      ]);
      expect(entra.outs).toMatchObject({
        peopleCount: 3,
        ignored: ["guest_contoso.example#EXT#@northwind.onmicrosoft.com"],
        csvPath: entraPath,
      });
      expect(google.outs).toMatchObject({ peopleCount: 2, ignored: [] });
      expect(okta.outs).toMatchObject({ peopleCount: 2, ignored: [] });
      expect(workday.outs).toMatchObject({ peopleCount: 2, ignored: [] });
      // The hash is of what was sent (the mapped CSV), not of the export.
      expect(entra.outs.contentHash).toMatch(/^[0-9a-f]{64}$/);

      const warning = (text: string) => run.plugin.waitForLog((l) => l.line.includes(text));
      expect((await warning(`${label("entra")}: 1 of 4 rows have a user principal name but no email`)).line).toContain(
        "the service ignores them (the ignored output lists them): row 4 (Guest Auditor, guest_contoso.example#EXT#@northwind.onmicrosoft.com)",
      );
      expect((await warning(`${label("workday")}: 1 of 3 rows have neither`)).line).toContain(
        "left out of the upload (the service refuses a whole file for one such row): row 4 (Temp Worker)",
      );
      expect((await warning(`${label("google")}: 1 row repeats an earlier row`)).line).toContain(
        "row 4 (grace@northwind.example, as row 2)",
      );
      expect((await warning(`${label("okta")}: 2 of 2 rows will be synced (preset okta); columns: email <- email`)).line).toContain(
        "userPrincipalName <- login",
      );
      expect((await warning(`${label("entra")}: 3 of 4 rows will be synced (preset entra-id)`)).line).toContain(
        "not synced (no property maps them): id, userType, accountEnabled",
      );
    });

    // What the service holds: the export's columns in the service's properties.
    expect(people("entra").get("Ada.Lovelace@northwind.example")).toMatchObject({
      userPrincipalName: "ada@northwind.example",
      name: "Ada Lovelace",
      role: "Litigation Support Manager",
      department: "Legal",
      officeLocation: "Legal 4th floor",
    });
    expect([...people("entra").keys()].sort()).toEqual([
      "Ada.Lovelace@northwind.example",
      "alan.turing@northwind.example",
      "carol@northwind.example",
    ]);
    expect(people("google").get("grace@northwind.example")).toMatchObject({
      name: "Grace Hopper",
      managerEmail: "ada@northwind.example",
      otherEmails: "grace.h@northwind.example",
    });
    expect(people("okta").get("margaret@northwind.example")).toMatchObject({
      userPrincipalName: "margaret@northwind.example",
      name: "Margaret Heafield Hamilton",
      managerName: "Grace Hopper",
    });
    expect(people("workday").get("barbara@northwind.example")).toMatchObject({
      employeeStartDate: "2012-09-15",
      employeeEndDate: "2025-12-31",
      role: "Investigations Lead",
    });
    expect(people("workday").size).toBe(2);
  });

  it("an export with its rows reordered is no change; a mapping that changes what is sent is an update", async () => {
    const [header, ...rows] = ENTRA_EXPORT.replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    const entraPath = file("entra-users.csv", csvFile([header!, ...rows.reverse()]));
    const before = syncs();
    await world.run(async (run) => {
      const d = await res(run, "entra");
      expect((await d.preview({ directoryId: dirs.entra, csvPath: entraPath, preset: "entra-id" })).op).toBe("same");
      // The same CSV reached another way (the preset's own column named): still no change.
      expect((await d.preview({ directoryId: dirs.entra, csvPath: entraPath, preset: "entra-id", columns: { email: "mail" } })).op).toBe(
        "same",
      );
      const up = await d.up({ directoryId: dirs.entra, csvPath: entraPath, preset: "entra-id", columns: { department: null } });
      expect(up.op).toBe("update");
    });
    expect(syncs()).toBe(before + 1);
    // The sync overwrites: a property the mapping no longer fills is empty now.
    expect(people("entra").get("alan.turing@northwind.example")?.department).toBeNull();
  });

  it("refuses at preview a file most of whose rows have no email, before anything is sent; the fixes it names work", async () => {
    const m365Path = file("m365-export.csv", M365_EXPORT);
    const before = syncs();
    await world.run(async (run) => {
      const d = await res(run, "m365");
      const err = await d.preview({ directoryId: dirs.m365, csvPath: m365Path, preset: "entra-id" }).then(
        () => new Error("expected a failure"),
        (e: Error) => e,
      );
      expect(err.message).toContain(
        "csvPath: 3 of 3 rows (100%) have no email and would not be synced (row 2 (Ada Lovelace), row 3 (Alan Turing), row 4 (Carol Custodian)): a mis-mapped export is the likely cause. " +
          "Columns whose values look like email addresses: 'User principal name' (100% of rows); map one with columns: { email: \"User principal name\" }. " +
          "To sync the 0 rows that have one anyway, set allowIgnoredRows: true.",
      );
      await expect(d.up({ directoryId: dirs.m365, csvPath: m365Path, preset: "entra-id" })).rejects.toThrow(
        /check failed: csvPath: 3 of 3 rows \(100%\)/,
      );
      expect(syncs()).toBe(before);

      // Saying so on purpose syncs what there is (nothing with an email here); the service reports the rest.
      const allowed = await d.up({ directoryId: dirs.m365, csvPath: m365Path, preset: "entra-id", allowIgnoredRows: true });
      expect(allowed.outs).toMatchObject({
        peopleCount: 0,
        ignored: ["ada@northwind.example", "alan@northwind.example", "carol@northwind.example"],
      });
      // Mapping the email column: everyone is synced.
      const fixed = await d.up({
        directoryId: dirs.m365,
        csvPath: m365Path,
        preset: "entra-id",
        columns: { email: "User principal name" },
      });
      expect(fixed.outs).toMatchObject({ peopleCount: 3, ignored: [] });
    });
    expect(people("m365").get("carol@northwind.example")).toMatchObject({
      role: "Records Clerk",
      officeLocation: "Records",
      preferredLanguage: "en-US",
    });
  });

  it("a file in the service's own format is judged the same way, and an export given without a mapping is pointed to its preset", async () => {
    await world.run(async (run) => {
      const mostlyIgnored = "email,user principal name\na@northwind.example,\n,svc1@northwind.example\n,svc2@northwind.example\n";
      expect(await failuresOf(run, { directoryId: dirs.raw, csv: mostlyIgnored })).toMatch(
        /^csv \| 2 of 3 rows \(67%\) have no email and would not be synced \(row 3 \(svc1@northwind\.example\), row 4 \(svc2@northwind\.example\)\): a mis-mapped export is the likely cause\. .*set allowIgnoredRows: true\.$/,
      );
      expect(await failuresOf(run, { directoryId: dirs.raw, csv: mostlyIgnored, allowIgnoredRows: true })).toBe("");

      expect(await failuresOf(run, { directoryId: dirs.raw, csv: ENTRA_EXPORT })).toMatch(
        /^csv \| custodian CSV row 1: unknown headers 'userprincipalname', 'displayname', .*'createddatetime' \(supported: .*\)\. The header row looks like a Microsoft Entra ID 'Download users' \(or Microsoft 365 admin center 'Export users'\): set preset: "entra-id" to map its columns\.$/,
      );
      expect(await failuresOf(run, { directoryId: dirs.raw, csv: WORKDAY_EXPORT })).toMatch(/set preset: "workday" to map its columns\.$/);
      expect(await failuresOf(run, { directoryId: dirs.raw, csv: "Mail,Name\na@b.example,A\n" })).toMatch(
        /unknown header 'mail' .*\. To read an export with other column names, map them with columns \(e\.g\. \{ email: "Mail" \}\) or a preset \(see docs\/custodians\.md\)\.$/,
      );
    });
  });

  it("the new inputs' rules, each failure naming the field", async () => {
    await world.run(async (run) => {
      const check = (inputs: Record<string, unknown>) => failuresOf(run, { directoryId: dirs.raw, ...inputs });
      expect(await check({ people: [{ email: "a@b.example" }], preset: "okta" })).toBe(
        "preset | preset, columns and dateFormat read an export given as csv or csvPath; people are already typed records",
      );
      expect(await check({ csv: OKTA_EXPORT, preset: "azure" })).toBe("preset | must be one of: entra-id, okta, google-workspace, workday");
      expect(await check({ csv: OKTA_EXPORT, columns: { mail: "email" } })).toMatch(
        /^columns\.mail \| is not a custodian property \(properties: email, businessPhone, /,
      );
      expect(await check({ csv: OKTA_EXPORT, columns: { email: "" } })).toBe("columns.email | must name a header of the file");
      expect(await check({ csv: OKTA_EXPORT, dateFormat: "yyyy/MM/dd" })).toBe(
        "dateFormat | must be one of: yyyy-MM-dd, MM/dd/yyyy, dd/MM/yyyy, dd.MM.yyyy",
      );
      expect(await check({ csv: OKTA_EXPORT, preset: "okta", columns: { email: "Email Address" } })).toBe(
        `csv | custodian CSV row 1, column 'Email Address': columns.email names 'Email Address', which is not a header of the file (its headers: ${OKTA_EXPORT.split("\r\n")[0]!.split(",").join(", ")})`,
      );
      expect(await check({ csv: WORKDAY_EXPORT, preset: "workday" })).toBe(
        "csv | custodian CSV row 2, column 'Hire Date': date '3/1/2015' is not written yyyy-MM-dd: set dateFormat to how the file writes dates (yyyy-MM-dd, MM/dd/yyyy, dd/MM/yyyy, dd.MM.yyyy)",
      );
    });
  });
});
