/**
 * A stack written by pulumi-reviewadmin 0.2.0 (the release commit), read by this version under the
 * real engine. test/fixtures/state-0.2.0/stack.json is the state 0.2.0 wrote for program.cjs
 * beside it (one resource of each kind that adopts people of the seeded world: both rosters, a
 * database grant, organization permissions, user identifiers), exported from a real run
 * (make.cjs says how it was made). Imported into a new stack, it reads with today's code: a
 * refresh finds every resource as stored, today's program over it is a no-change up that sends no
 * write, one changed input is one update, and destroy deletes each. What changed in the layout
 * since 0.2.0 (CHANGELOG, "State compatibility": rosters without `foundWhenAdopted`, maps stored
 * as maps before packing) is in this state as 0.2.0 wrote it, not as a test imagines it
 * (olderStates.test.ts holds those layouts one by one, and the older provider texts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { unpackProps } from "../../contract/packed";
import * as reviewadmin from "../../provider";
import { useEmulator } from "../support/emulatorHttp";
import { skipWithoutEngine } from "../support/engine";
import { writesFrom } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";

const FIXTURE = path.resolve(__dirname, "../fixtures/state-0.2.0");
const program = require(path.join(FIXTURE, "program.cjs")) as (pkg: typeof reviewadmin, grant?: string[]) => void;
const DB = SEEDED.databases.open;
const MARGARET = SEEDED.users.multiOrgMember;

skipWithoutEngine("test/engine/state020.test.ts");

const emu = useEmulator();

/** The 0.2.0 state, its default provider's base URL moved to this test's emulator (a state holds its stack's config). */
function fixtureFor(url: string): string {
  const text = fs.readFileSync(path.join(FIXTURE, "stack.json"), "utf8");
  const old = /"reviewadmin:baseUrl": "([^"]+)"/.exec(text)![1]!;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "state-020-")), "stack.json");
  fs.writeFileSync(file, text.split(old).join(url));
  return file;
}

/** The outputs 0.2.0 stored for the resource named `name`. */
function stored(name: string): Record<string, unknown> {
  const deployment = JSON.parse(fs.readFileSync(path.join(FIXTURE, "stack.json"), "utf8")) as {
    deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] };
  };
  return deployment.deployment.resources.find((r) => r.urn.endsWith(`::${name}`))!.outputs!;
}

/** Outputs without the provider text (0.2.0's shim line and today's may differ in wording, not in what they call). */
const withoutProvider = ({ __provider: _p, ...rest }: Record<string, unknown>) => rest;

describe("a stack written by 0.2.0", () => {
  it("reads under this version: refresh finds it as stored, a no-change up writes nothing, a change updates, destroy deletes", async () => {
    emu.reset();
    // The config 0.2.0's run had (the seeded key is the same in every seeded world), so the provider is unchanged too.
    const s = new EngineStack({
      cwd: programFolder("state-020-"),
      project: "state-020",
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin! },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
    try {
      const fixture = fixtureFor(emu.url);
      const importFixture = async () => {
        const imported = await s.cli(["stack", "import", "--file", fixture]);
        expect(imported.code, imported.stderr).toBe(0);
      };
      const kinds = ["OrganizationMembers", "DatabaseUsers", "DatabaseUserPermissions", "OrgMemberPermissions", "UserIdentifiers"];
      const since = writesFrom(emu);

      // Refresh: every resource reads as 0.2.0 stored it. The one roster whose maps are past the
      // size kept as values (contract/packed.ts) has them written again as text: the same people,
      // in today's layout, once; the next refresh finds everything the same.
      await importFixture();
      const refresh = await s.refresh();
      for (const st of refresh.steps) {
        const kind = st.type.split(":").at(-1)!;
        expect(unpackProps(kind, withoutProvider(s.find(st.name)!.outputs))).toEqual(unpackProps(kind, withoutProvider(stored(st.name))));
      }
      expect(refresh.steps.filter((st) => st.op !== "refresh-same").map((st) => `${st.op} ${st.name}`)).toEqual(["refresh-changed legal"]);
      expect(typeof s.find("legal")!.outputs.members).toBe("string");
      expect((await s.refresh()).steps.map((st) => st.op)).toEqual(kinds.map(() => "refresh-same"));

      // Up, as an upgrade runs it (no refresh first): today's program over the state as 0.2.0 left it changes nothing.
      await importFixture();
      const same = await s.up(() => program(reviewadmin), { expectNoChanges: true });
      expect(same.steps.map((st) => st.op)).toEqual(kinds.map(() => "same"));
      expect(since()).toEqual([]);

      const change = writesFrom(emu);
      const changed = await s.up(() => program(reviewadmin, ["DB_UPLOAD", "DB_DELETE"]));
      expect(changed.steps.filter((st) => st.op !== "same").map((st) => `${st.op} ${st.name}`)).toEqual(["update margaret-open"]);
      expect(change().length).toBeGreaterThan(0);
      expect(emu.store.databases.findUser(DB, MARGARET)?.permissions?.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);

      const destroy = await s.destroy();
      expect(destroy.steps.map((st) => st.op)).toEqual(kinds.map(() => "delete"));
    } finally {
      await s.close();
    }
  });
});
