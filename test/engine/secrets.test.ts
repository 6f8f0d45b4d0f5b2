/**
 * The API key under the real engine: after an up, a no-change up, a refresh with drift, a failed
 * up and a destroy, the key (or its secret part) is in no file of the local backend (checkpoints,
 * history, backups), not in `pulumi stack export`, and not in anything the CLI printed or any
 * engine event, although it is the stack's secret config and every run decrypts it for the
 * provider.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const world = useProgramWorld("secrets");

/** The classes a program uses: the dynamic face's, or the same on the plugin face (reviewadmin.plugin). */
type Faces = Pick<typeof reviewadmin.plugin, "OrganizationMembers" | "DatabaseUserPermissions" | "Invitation">;

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesIn(p) : [p];
  });
}

// The plugin face's executable, found on PATH as Pulumi finds an installed plugin (docs/plugin.md).
process.env.PATH = `${path.resolve(__dirname, "../../plugin")}${path.delimiter}${process.env.PATH}`;

describe.each([
  ["dynamic face", reviewadmin as Faces],
  ["plugin face", reviewadmin.plugin],
] as [string, Faces][])("the API key, %s", (face, ra) => {
  it("is never in the checkpoints, the stack export, the CLI's output or the engine's events", async () => {
    const s = world.freshStack();
    const key = world.emu.keys.orgAdmin!;
    const secretPart = key.split(".")[2]!;
    const printed: string[] = [];
    const program = (userId: number) => () => {
      new ra.OrganizationMembers("legal", {
        organizationId: ORG,
        mode: "additive",
        onUnmanaged: "report",
        members: { "grace@northwind.example": { permissions: ["AI_ADMIN"] } },
      });
      new ra.DatabaseUserPermissions("grant", { databaseId: DB, userId, permissions: ["DB_UPLOAD"] });
      new ra.Invitation("zoe", { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] });
    };
    const record = async (run: Promise<unknown>) => {
      await run.catch(() => {});
      printed.push(s.lastTranscript.text);
    };
    await record(s.up(program(SEEDED.users.member)));
    // Each resource stores the one-line provider text (resourceClass.ts providerSource), and nothing else of the code.
    for (const e of face === "dynamic face" ? s.state.values() : []) {
      const kind = e.type.split(":").at(-1);
      expect(e.inputs.__provider, e.name).toBe(`exports.handler = () => require("pulumi-reviewadmin/runtime").shim("${kind}");\n`);
      expect(e.outputs.__provider, e.name).toBe(e.inputs.__provider);
    }
    await record(s.up(program(SEEDED.users.member), { expectNoChanges: true }));
    world.emu.store.databases.removeUser(DB, SEEDED.users.member);
    world.emu.store.changed();
    await record(s.refresh());
    // A failing create: its error message travels through the engine.
    await record(s.up(program(999_999)));
    // While the stack holds resources (and the default provider, whose inputs are the config)...
    const exported = await s.cli(["stack", "export"]);
    expect(exported.code, exported.stderr).toBe(0);
    // The dynamic face's provider holds the config by its namespaced keys; the plugin's default provider by its own.
    expect(exported.stdout).toMatch(
      face === "dynamic face"
        ? /reviewadmin:apiKey/
        : /"apiKey": \{\s+"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",\s+"ciphertext"/,
    );
    const checkpoints = filesIn(s.backendDir).map((f) => [f, fs.readFileSync(f, "latin1")] as const);
    // ... and after destroy.
    await record(s.destroy());

    expect(printed.join("").length).toBeGreaterThan(1000);
    expect(checkpoints.some(([f]) => f.endsWith(".json"))).toBe(true);
    for (const [where, text] of [
      ["the CLI's output and events", printed.join("\n")],
      ["pulumi stack export", exported.stdout],
      ...checkpoints,
      ...filesIn(s.backendDir).map((f) => [f, fs.readFileSync(f, "latin1")] as const),
    ]) {
      expect(text.includes(key), where).toBe(false);
      expect(text.includes(secretPart), where).toBe(false);
    }
  });
});
