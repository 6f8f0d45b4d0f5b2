/**
 * Dataset through the real plugin against the emulator: what check refuses before anything is
 * sent. (Creation and its lost answers: test/reliability/inFlightCreates.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { programFolder, useResourceWorld } from "../support/providerWorld";

const DB = SEEDED.databases.open;
const { world, store, record, res, failuresOf } = useResourceWorld("Dataset", { cwd: programFolder("dataset-") });
const datasetsNamed = (name: string) => Object.values(store().uploads.state.datasets).filter((d) => d.name === name);

describe("Dataset", () => {
  it("refuses a name with control characters at check, naming the field, the character and the rule; sends nothing", async () => {
    const sent = record();
    await world().run(async (run) => {
      const cases: [string, string][] = [
        ["Mail\u00002026", "U\\+0000"],
        ["Mail\n2026", "U\\+000A"],
        ["Mail\r", "U\\+000D"],
        ["Mail\u001b[31m", "U\\+001B"],
        ["Mail\u009b", "U\\+009B"],
        ["Invoice\u202Efdp.exe", "U\\+202E"],
        ["\u200FMail", "U\\+200F"],
        ["Mail\u2068x\u2069", "U\\+2068"],
      ];
      for (const [name, code] of cases) {
        expect(await failuresOf(run, { databaseId: DB, name }), JSON.stringify(name)).toMatch(
          new RegExp(`^name: must not contain control characters \\(found ${code} at character \\d+\\): no NUL, tab, line break`),
        );
      }
      expect(await failuresOf(run, { databaseId: DB, name: "Mail 2026 – Zoë's «export» 東京" })).toBe("");
      await expect((await res(run, "rlo")).up({ databaseId: DB, name: "Invoice\u202Efdp.exe" })).rejects.toThrow(/name: must not contain/);
    });
    expect(sent.writes()).toEqual([]);
    expect(datasetsNamed("Invoice\u202Efdp.exe")).toEqual([]);
  });
});
