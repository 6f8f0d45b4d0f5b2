/**
 * CustodianDirectorySync through the real plugin against the emulator: sync from people records
 * and from a CSV file, refresh (which keeps the last synced state: the service has no read
 * endpoint), an edited file showing as a change, update, replace on a change of directory,
 * delete (the directory stays, with a warning), every class of CSV rule refused at plan time
 * with the row in the message, and API errors.
 *
 * No 422 test: the resource's only operation is E5 (sync custodians), which creates no capped
 * object (the spec's only 422 is a cap on API-created objects, e.g. datasets); the CSV size cap
 * is checked at plan time. So no operation of this resource can answer 422.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { programFolder, useResourceWorld, type Run } from "../support/providerWorld";
import { errorOf, SCENARIO, step } from "../support/scenario";

const DIR = SEEDED.directories.org; // 5001, owned by 102
const { world, store, record, res, failuresOf: checkFailures } = useResourceWorld("CustodianDirectorySync");
const custodian = (dir: number, email: string) =>
  store()
    .directories.get(dir)
    .custodians.find((c) => c.email.toLowerCase() === email.toLowerCase());
/** Check failures as `property | reason`, one a line. */
const failuresOf = (run: Run, inputs: Record<string, unknown>) => checkFailures(run, inputs, (f) => `${f.property} | ${f.reason}`);

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cds-test-"));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const people = [
  { email: "Carol.Custodian@Example.com", firstName: "Carol", lastName: "Custodian", department: "Legal" },
  { email: "dan@example.com", name: "Dan Dee", employeeStartDate: "2020-02-29" },
  { userPrincipalName: "svc-archive@corp.example", department: "IT" },
];
const peopleInputs = { directoryId: DIR, people };
const CSV_V1 = "Email,Name,Department,User Principal Name\nerin@example.com,Erin E,Finance,\n,,,upn-only@corp.example\n";
const CSV_V2 = "Email,Name,Department,User Principal Name\nerin@example.com,Erin E,Treasury,\nfrank@example.com,Frank F,Finance,\n";

describe("CustodianDirectorySync", () => {
  it(
    "people records and a CSV file: synced, refreshed, drift unseen, updated, replaced on a change of directory, deleted; a directory already gone",
    SCENARIO,
    async () => {
      const fileDir = store().directories.create({ organizationId: SEEDED.org, name: "From a file" }).id;
      const movedDir = store().directories.create({ organizationId: SEEDED.org, name: "Moved here" }).id;
      const csvFile = path.join(tmp, "custodians.csv");
      const fileInputs = { directoryId: fileDir, csvPath: csvFile };

      await step("syncs people records and a CSV file; `ignored` lists the principal-name-only people", async () => {
        fs.writeFileSync(csvFile, CSV_V1);
        const [fromPeople, fromFile] = await world().run(async (run) =>
          Promise.all([(await res(run, "people")).up(peopleInputs), (await res(run, "file")).up(fileInputs)]),
        );
        expect(fromPeople.op).toBe("create");
        expect(fromPeople.id).toBe(`directory/${DIR}`);
        expect(fromPeople.outs).toMatchObject({ directoryId: DIR, peopleCount: 2, ignored: ["svc-archive@corp.example"] });
        expect(fromPeople.outs.contentHash).toMatch(/^[0-9a-f]{64}$/);
        expect(fromPeople.inputs.contentHash).toBe(fromPeople.outs.contentHash);
        expect(fromFile.outs).toMatchObject({ directoryId: fileDir, peopleCount: 1, ignored: ["upn-only@corp.example"], csvPath: csvFile });

        // What the service holds now.
        expect(custodian(DIR, "carol.custodian@example.com")).toMatchObject({
          name: "Carol Custodian",
          department: "Legal",
          firstName: "Carol",
        });
        expect(custodian(DIR, "dan@example.com")).toMatchObject({ name: "Dan Dee", employeeStartDate: "2020-02-29", department: null });
        expect(
          store()
            .directories.get(DIR)
            .custodians.some((c) => c.userPrincipalName === "svc-archive@corp.example"),
        ).toBe(false);
        expect(store().directories.get(fileDir).custodians).toEqual([
          expect.objectContaining({ email: "erin@example.com", name: "Erin E", department: "Finance" }),
        ]);
      });

      await step("refresh with nothing changed keeps the state, and the next up is the same (nothing sent)", async () => {
        const sent = record();
        await world().run(async (run) => {
          for (const [name, inputs] of [
            ["people", peopleInputs],
            ["file", fileInputs],
          ] as const) {
            const d = await res(run, name);
            const before = d.state!;
            const s = await d.refresh();
            expect(s?.outputs).toEqual(before.outputs);
            expect(s?.inputs).toEqual(before.inputs);
            expect((await d.up(inputs)).op).toBe("same");
          }
          // Records in another order render the same CSV.
          expect((await (await res(run, "people")).preview({ directoryId: DIR, people: [...people].reverse() })).op).toBe("same");
        });
        expect(sent.all()).toEqual([]);
      });

      await step(
        "drift behind its back cannot be seen on refresh (the service has no read endpoint): the last synced state stays",
        async () => {
          store()
            .directories.get(DIR)
            .custodians.find((c) => c.email === "dan@example.com")!.department = "Changed in the web app";
          const sent = record();
          await world().run(async (run) => {
            const d = await res(run, "people");
            const before = d.state!;
            expect((await d.refresh())?.outputs).toEqual(before.outputs);
            expect((await d.preview(peopleInputs)).op).toBe("same");
          });
          expect(custodian(DIR, "dan@example.com")!.department).toBe("Changed in the web app");
          expect(sent.all()).toEqual([]);
        },
      );

      await step("updates in place: changed records, and an edited file shows as a change at preview (contentHash)", async () => {
        const changed = [{ ...people[0], department: "Litigation" }, people[1]];
        await world().run(async (run) => {
          const d = await res(run, "people");
          expect((await d.preview({ directoryId: DIR, people: changed })).op).toBe("update");
          const r = await d.up({ directoryId: DIR, people: changed });
          expect(r.op).toBe("update");
          expect(r.outs).toMatchObject({ peopleCount: 2, ignored: [] });

          const f = await res(run, "file");
          const oldHash = f.state!.outputs.contentHash;
          fs.writeFileSync(csvFile, CSV_V2);
          const p = await f.preview(fileInputs);
          expect(p.op).toBe("update");
          expect(p.check.inputs.contentHash).not.toBe(oldHash);
          const u = await f.up(fileInputs);
          expect(u.op).toBe("update");
          expect(u.outs).toMatchObject({ peopleCount: 2, ignored: [], contentHash: p.check.inputs.contentHash });
        });
        expect(custodian(DIR, "carol.custodian@example.com")!.department).toBe("Litigation");
        // The sync overwrites Dan: the department set behind its back is emptied again.
        expect(custodian(DIR, "dan@example.com")!.department).toBeNull();
        expect(custodian(fileDir, "erin@example.com")!.department).toBe("Treasury");
        expect(custodian(fileDir, "frank@example.com")).toMatchObject({ name: "Frank F", department: "Finance" });
      });

      await step("replaces on a change of directory; the old directory is left as it was, with a warning", async () => {
        const before = structuredClone(store().directories.get(fileDir).custodians);
        await world().run(async (run) => {
          const f = await res(run, "file");
          const r = await f.up({ directoryId: movedDir, csvPath: csvFile });
          expect(r.op).toBe("replace");
          expect(r.diff?.replaces).toEqual(["directoryId"]);
          expect(r.id).toBe(`directory/${movedDir}`);
          await run.plugin.waitForLog(
            new RegExp(`warning: .*CustodianDirectorySync of directory ${fileDir}: the service has no endpoint to delete or empty`),
          );
        });
        expect(store().directories.get(fileDir).custodians).toEqual(before);
        expect(
          store()
            .directories.get(movedDir)
            .custodians.map((c) => c.email)
            .sort(),
        ).toEqual(["erin@example.com", "frank@example.com"]);
      });

      await step("delete leaves the directory's people and logs a warning", async () => {
        const before = structuredClone(store().directories.get(DIR).custodians);
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "people");
          await d.destroy();
          expect(d.state).toBeUndefined();
          const line = await run.plugin.waitForLog(
            /CustodianDirectorySync of directory 5001: the service has no endpoint to delete or empty a custodian directory; its people stay as last synced/,
          );
          expect(line.stream).toBe("stderr");
        });
        expect(store().directories.get(DIR).custodians).toEqual(before);
        expect(sent.all()).toEqual([]);
      });

      await step("delete of a directory already gone succeeds", async () => {
        store().directories.delete(movedDir);
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "file");
          await d.destroy();
          expect(d.state).toBeUndefined();
        });
        expect(sent.all()).toEqual([]);
      });
    },
  );

  it("names every unknown header at plan time, not only the first", async () => {
    await world().run(
      async (run) => {
        expect(await checkFailures(run, { directoryId: DIR, csv: "Email,Emial,Deparment,Job Titel\na@b.example,x,y,z\n" })).toMatch(
          /^csv: custodian CSV row 1: unknown headers 'emial', 'deparment', 'job titel' \(supported: email,/,
        );
      },
      { cwd: programFolder() },
    );
  });

  it("refuses every class of CSV rule at plan time with the row in the message, and bad inputs naming the field", async () => {
    const big = path.join(tmp, "big.csv");
    fs.writeFileSync(big, "email\n");
    fs.truncateSync(big, 190_000_001); // sparse: nothing is written
    await world().run(async (run) => {
      const csv = (text: string) => failuresOf(run, { directoryId: DIR, csv: text });
      expect(await csv("email,first name,user principal name\nx@y.example,X,\n,Bob,\n")).toMatch(
        /^csv \| custodian CSV row 3: a person needs an 'email' or a 'user principal name'$/,
      );
      expect(await csv("email,employee start date\na@b.example,2024-02-30\n")).toMatch(
        /custodian CSV row 2, column 'employee start date': date '2024-02-30' must be a real date written yyyy-MM-dd/,
      );
      expect(await csv("email,employee end date\na@b.example,03/04/2024\n")).toMatch(/row 2, .*yyyy-MM-dd/);
      expect(await csv("Email,Emial\na@b.example,x\n")).toMatch(
        /custodian CSV row 1, column 'emial': unknown header 'emial' \(supported: email,/,
      );
      expect(await csv("email,name\na@b.example,A\nA@B.example,B\n")).toMatch(
        /row 3, column 'email': email 'A@B.example' already appears on row 2/,
      );
      expect(await csv("email,name\na@b.example\n")).toMatch(/row 2: the row has 1 cells but the header has 2/);
      expect(await csv("email,name\nnot-an-email,A\n")).toMatch(/row 2, column 'email': 'not-an-email' is not an email address/);
      expect(await csv("name,department\nA,B\n")).toMatch(/row 1: the header has neither 'email' nor 'user principal name'/);

      expect(await failuresOf(run, { directoryId: DIR, people, csv: "email\na@b.example\n" })).toMatch(
        /people \| give exactly one of people, csv and csvPath/,
      );
      expect(await failuresOf(run, { directoryId: DIR })).toMatch(/people \| give exactly one of people, csv and csvPath/);
      expect(await failuresOf(run, { directoryId: DIR, csvPath: big })).toMatch(
        /^csvPath \| custodian CSV file: the file is 190000001 bytes; the service takes at most 190000000 bytes \(190MB\)$/,
      );
      expect(await failuresOf(run, { directoryId: DIR, csvPath: path.join(tmp, "missing.csv") })).toMatch(
        /csvPath \| .*ENOENT.*missing\.csv/,
      );
      expect(await failuresOf(run, { directoryId: DIR, people: [{ email: "a@b.example", emial: "x" }] })).toMatch(
        /people\.0 \| Unrecognized key: "emial"/,
      );
      expect(await failuresOf(run, { directoryId: 0, csv: "email\n" })).toMatch(/directoryId \| must be a positive integer directory id/);

      const p = await (await res(run, "later")).preview({ directoryId: UNKNOWN, csv: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("names the record (people.<i>), not a row of the CSV rendered from the records, for each class of rule", async () => {
    await world().run(async (run) => {
      const check = (records: Record<string, string>[]) =>
        failuresOf(run, { directoryId: DIR, people: [{ email: "zed@example.com" }, ...records] });
      // Amy sorts first in the rendered CSV (row 2), but she is people.1.
      expect(await check([{ email: "amy@example.com", employeeEndDate: "2024-1-5" }])).toBe(
        "people.1 | amy@example.com, employeeEndDate: date '2024-1-5' must be a real date written yyyy-MM-dd",
      );
      expect(await check([{ firstName: "Nobody", department: "Legal" }])).toBe(
        "people.1 | no email or user principal name: a person needs an 'email' or a 'user principal name'",
      );
      expect(await check([{ email: "not-an-email" }])).toMatch(
        /^people\.1 \| not-an-email, email: 'not-an-email' is not an email address$/,
      );
      expect(await check([{ email: "amy@example.com" }, { email: "Zed@Example.com", name: "Zed again" }])).toBe(
        "people.2 | Zed@Example.com: the same email as people.0 (people are matched by email)",
      );
    });
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world().run(
      async (run) => {
        const err = await errorOf((await res(run, "denied")).up({ directoryId: DIR, csv: "email\na@b.example\n" }));
        expect(err.message).toMatch(
          /^creating CustodianDirectorySync of directory 5001: the service answered 403 .*\(this needs org admin or LEGAL_HOLD_ADMIN in the organization owning directory 5001, which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      const err = await errorOf((await res(run, "nowhere")).up({ directoryId: 999999, csv: "email\na@b.example\n" }));
      expect(err.message).toMatch(
        /^creating CustodianDirectorySync of directory 999999: the service answered 404 .*\(check that directory 999999 exists\)$/,
      );
      expect(err.message).not.toContain("\n");
    });
    expect(custodian(DIR, "a@b.example")).toBeUndefined();
  });
});
