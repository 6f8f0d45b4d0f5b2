/**
 * The plugin face (`reviewadmin` provider plugin, provider/plugin/) under the real engine, from an
 * inline TypeScript program that registers its resources by type token, as any language's
 * generated SDK does: explicit providers side by side (each resource's requests go to its own
 * service with its own key), CheckConfig at preview, detailed diffs (one changed person is one
 * path), refresh, import by id, and the key in no file of the state.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import * as reviewadmin from "../../provider";
import { skipWithoutEngine } from "../support/engine";
import { programFolder } from "../support/providerWorld";
import { runAsync } from "../../harness/runAsync";
import { writesFrom } from "../support/programWorld";
import { control } from "../support/emulatorHttp";
import { RunError } from "../../harness/runResult";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const PLUGIN_DIR = path.resolve(__dirname, "../../plugin");

skipWithoutEngine("plugin face");

let east: RunningEmulator;
let west: RunningEmulator;
beforeAll(async () => {
  [east, west] = await Promise.all([startEmulator({ rateLimit: 0 }), startEmulator({ rateLimit: 0, seed: 2 })]);
});
afterAll(async () => {
  await Promise.all([east?.close(), west?.close()]);
});

const stacks: EngineStack[] = [];
afterAll(async () => {
  for (const s of stacks) await s.close();
});

/** A stack whose default provider is the east emulator's, the plugin found on PATH. */
function pluginStack(project: string): EngineStack {
  east.reset();
  west.reset();
  const s = new EngineStack({
    cwd: programFolder(`${project}-`),
    project,
    config: {
      "reviewadmin:baseUrl": east.url,
      "reviewadmin:apiKey": east.keys.orgAdmin!,
      "reviewadmin:requestsPerSecond": "1000",
    },
    secretConfigKeys: ["reviewadmin:apiKey"],
    env: { PATH: `${PLUGIN_DIR}${path.delimiter}${process.env.PATH}` },
    keepTranscript: true,
  });
  stacks.push(s);
  return s;
}

/** A resource by type token, as a generated SDK registers it (the SDK's classes are abstract). */
class Raw extends pulumi.CustomResource {}
/** An explicit provider of the plugin face. */
class Provider extends pulumi.ProviderResource {}

/** A run's failure as its errors (empty when it passed). */
const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => "",
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );

const T = (kind: string) => `reviewadmin:index:${kind}`;

/** Requests after `mark` in an emulator's log, as the rate-limit account (the key) that sent them. */
const accountsFrom = (emu: RunningEmulator, mark: number) =>
  new Set(
    emu.traffic.log
      .list()
      .slice(mark)
      .map((e) => e.account),
  );

describe("the plugin face", () => {
  it("runs explicit providers side by side, each with its own service and key", async () => {
    const s = pluginStack("plugin-two");
    const [eastMark, westMark] = [east.traffic.log.list().length, west.traffic.log.list().length];
    const program = () => {
      const eastP = new Provider("reviewadmin", "east", {
        apiKey: pulumi.secret(east.keys.orgAdmin!),
        baseUrl: east.url,
        requestsPerSecond: 1000,
      });
      const westP = new Provider("reviewadmin", "west", {
        apiKey: pulumi.secret(west.keys.orgKey!),
        baseUrl: west.url,
        requestsPerSecond: 1000,
      });
      for (const [name, provider] of [
        ["east", eastP],
        ["west", westP],
      ] as const) {
        new Raw(
          T("OrganizationMembers"),
          `legal-${name}`,
          {
            organizationId: ORG,
            mode: "additive",
            onUnmanaged: "report",
            members: { [`${name}.hire@northwind.example`]: { permissions: ["AI_ADMIN"] } },
          },
          { provider },
        );
      }
    };
    await s.up(program);
    // Nothing changed: neither provider nor any resource changes (the keys compare as values).
    await s.up(program, { expectNoChanges: true });
    const invited = (emu: RunningEmulator) => emu.store.invitations.of(ORG).map((i) => i.email);
    expect(invited(east)).toContain("east.hire@northwind.example");
    expect(invited(east)).not.toContain("west.hire@northwind.example");
    expect(invited(west)).toContain("west.hire@northwind.example");
    expect(invited(west)).not.toContain("east.hire@northwind.example");
    // East was called with Ada's user key only, west with the organization key only.
    expect(accountsFrom(east, eastMark)).toEqual(new Set([`user:${SEEDED.users.orgAdmin}`]));
    expect([...accountsFrom(west, westMark)]).toEqual([expect.stringMatching(/^key:/)]);
    // The key is in no file of the state and nowhere in what the CLI printed or the engine's events,
    // although both providers' inputs hold it. Debug events are left out: the Node.js SDK's own debug
    // line for an explicit provider's registration prints its inputs, secrets included (docs/plugin.md says so).
    for (const key of [east.keys.orgAdmin!, west.keys.orgKey!]) {
      const printed = s.lastTranscript.text.split("\n").filter((l) => !l.includes('"severity":"debug"'));
      const leaks = printed.filter((l) => l.includes(key));
      expect(leaks.map((l) => l.replaceAll(key, "<KEY>").slice(0, 600))).toEqual([]);
    }
    for (const file of filesIn(s.backendDir)) {
      const text = fs.readFileSync(file, "utf8");
      for (const key of [east.keys.orgAdmin!, west.keys.orgKey!]) expect(text.includes(key), file).toBe(false);
    }
  });

  it("previews one changed person as one path, refreshes drift, imports by id, destroys", { timeout: 240_000 }, async () => {
    const s = pluginStack("plugin-life");
    const people = ["ann", "bob", "cy", "dee"].map((n) => `${n}@northwind.example`);
    const program = (bobPermissions: string[]) => () => {
      new Raw(T("OrganizationMembers"), "legal", {
        organizationId: ORG,
        mode: "additive",
        onUnmanaged: "report",
        members: Object.fromEntries(people.map((p) => [p, { permissions: p.startsWith("bob") ? bobPermissions : ["AI_ADMIN"] }])),
      });
      new Raw(T("DatabaseUserPermissions"), "grant", { databaseId: DB, userId: SEEDED.users.member, permissions: ["DB_UPLOAD"] });
      new Raw(T("Invitation"), "zoe", { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] });
    };
    await s.up(program(["AI_ADMIN"]));
    await s.up(program(["AI_ADMIN"]), { expectNoChanges: true });

    // One person changes: the diff names that person's path, and no other person.
    const preview = await s.preview(program(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]), { diff: true });
    // What a person reads: the CLI's lines, not the engine's JSON events (which carry whole inputs).
    const text = s.lastTranscript.text
      .split("\n")
      .filter((l) => !l.startsWith("{"))
      .join("\n");
    expect(preview.steps.filter((st) => st.op === "update").map((st) => st.name)).toEqual(["legal"]);
    expect(text).toMatch(/~ members: \{\s+~ bob@northwind\.example: \{\s+~ permissions: \[/);
    expect(text).toContain("~ bob@northwind.example (invited): AI_ADMIN → AI_ADMIN, LEGAL_HOLD_ADMIN");
    for (const other of people.filter((p) => !p.startsWith("bob"))) expect(text, other).not.toContain(other);

    // Drift: the grant removed by hand; refresh sees it, up puts it back.
    east.store.databases.removeUser(DB, SEEDED.users.member);
    east.store.changed();
    await s.refresh();
    await s.up(program(["AI_ADMIN"]));
    expect(east.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);

    await s.destroy();
    expect(east.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
  });

  it(
    "imports every access kind by its documented id, then an up of what import generated writes nothing",
    { timeout: 240_000 },
    async () => {
      const s = pluginStack("plugin-import");
      await s.up(() => {}); // the stack exists
      const ids: [kind: string, name: string, id: string][] = [
        ["OrganizationMembers", "legal", `organization/${ORG}`],
        ["DatabaseUsers", "open", `database/${DB}`],
        ["OrgMember", "ken", `${ORG}/ken@northwind.example`],
        ["Invitation", "newhire", `${ORG}/new.hire@northwind.example`],
        ["DatabaseUserPermissions", "margaret", `${DB}/${SEEDED.users.multiOrgMember}`],
        ["OrgMemberPermissions", "frances", `${ORG}/${SEEDED.users.legalHoldAdmin}`],
        ["UserIdentifiers", "ada", `${ORG}/${SEEDED.users.orgAdmin}`],
      ];
      const file = path.join(s.backendDir, "import.json");
      fs.writeFileSync(file, JSON.stringify({ resources: ids.map(([kind, name, id]) => ({ type: T(kind), name, id })) }));
      const since = writesFrom(east);
      const imported = await s.cli(["import", "--file", file, "--yes", "--out", path.join(s.backendDir, "generated.ts")]);
      expect(imported.code, imported.stderr + imported.stdout).toBe(0);
      type Entry = { urn: string; inputs: Record<string, any> };
      const resources = (await s.exportStack()).deployment.resources as Entry[];
      const state = new Map(resources.map((r) => [r.urn.split("::").at(-1)!, r]));
      // What each import read is what the service holds.
      expect(state.get("legal")?.inputs.mode).toBe("authoritative");
      expect(Object.keys(state.get("legal")?.inputs.members ?? {})).toContain("ada@northwind.example");
      expect(state.get("ken")?.inputs).toMatchObject({ organizationId: ORG, email: "ken@northwind.example", permissions: ["AI_ADMIN"] });
      expect(state.get("margaret")?.inputs).toMatchObject({
        databaseId: DB,
        userId: SEEDED.users.multiOrgMember,
        permissions: ["DB_UPLOAD"],
      });
      expect(state.get("frances")?.inputs).toMatchObject({ permissions: ["LEGAL_HOLD_ADMIN"] });
      const generated = fs.readFileSync(path.join(s.backendDir, "generated.ts"), "utf8");
      for (const [kind] of ids) expect(generated).toContain(`new reviewadmin.${kind}(`);

      // The program as import wrote it (each resource with the inputs read): an up changes nothing and writes nothing.
      await s.up(
        () => {
          for (const [kind, name] of ids) {
            const { inputs } = state.get(name)!;
            new Raw(T(kind), name, inputs, { protect: true });
          }
        },
        { expectNoChanges: true },
      );
      expect(since()).toEqual([]);

      // A kind with no id says why, and an id in the wrong shape names the pattern.
      fs.writeFileSync(file, JSON.stringify({ resources: [{ type: T("OrgMember"), name: "typo", id: "ken@northwind.example" }] }));
      const typo = await s.cli(["import", "--file", file, "--yes"]);
      expect(typo.code).not.toBe(0);
      expect(typo.stdout + typo.stderr).toContain("'ken@northwind.example' is not a OrgMember id: write it as <organizationId>/<email>");
    },
  );

  it("refuses a bad provider setting at preview, naming the key and the rule, before any request", async () => {
    const s = pluginStack("plugin-config");
    const mark = east.traffic.log.list().length;
    const run = s.preview(() => {
      const p = new Provider("reviewadmin", "slow", {
        apiKey: pulumi.secret(east.keys.orgAdmin!),
        baseUrl: east.url,
        requestsPerSecond: -1,
      });
      new Raw(T("OrgMember"), "ken", { organizationId: ORG, email: "ken@northwind.example" }, { provider: p });
    });
    await expect(run).rejects.toThrow(/requestsPerSecond.*must be a positive number, got '-1'/);
    expect(east.traffic.log.list().length).toBe(mark);
  });

  it("runs the data sources as the schema's functions", async () => {
    const s = pluginStack("plugin-functions");
    const result = await s.up(async () => {
      const org = await pulumi.runtime.invoke(T("getOrganization"), { organizationId: ORG });
      const users = await pulumi.runtime.invoke(T("getDatabaseUsers"), { databaseId: DB });
      return { name: org.name, users: users.users.map((u: { user: { id: number } }) => u.user.id) };
    });
    expect(result.outputs.name).toBe("Northwind Legal");
    expect(result.outputs.users).toContain(SEEDED.users.multiOrgMember);
    // A bad argument is refused with the function's own words, before any request.
    await expect(s.preview(() => pulumi.runtime.invoke(T("getOrganization"), { organizationId: "x" }))).rejects.toThrow(
      /getOrganization.*organizationId/,
    );
  });

  it(
    "takes over a dynamic-provider stack with no write and no access lost (docs/plugin.md's migration)",
    { timeout: 240_000 },
    async () => {
      const s = pluginStack("plugin-move");
      const roster = {
        organizationId: ORG,
        mode: "additive" as const,
        onUnmanaged: "report" as const,
        members: { "ann@northwind.example": { permissions: ["AI_ADMIN" as const] } },
      };
      const grant = { databaseId: DB, userId: SEEDED.users.member, permissions: ["DB_UPLOAD" as const] };
      const dynamic = (opts: pulumi.CustomResourceOptions) => () => {
        new reviewadmin.OrganizationMembers("legal", roster, opts);
        new reviewadmin.DatabaseUserPermissions("grant", grant, opts);
      };
      await s.up(dynamic({}));
      const access = () => ({
        members: east.store.members.of(ORG).map((m) => [m.userId, [...m.permissions]]),
        invitations: east.store.invitations.of(ORG).map((i) => [i.email, [...i.permissions]]),
        users: east.store.databases.usersOf(DB).map((u) => [u.userId, [...u.permissions]]),
      });
      const before = access();
      const since = writesFrom(east);
      // Step 1: the dynamic resources are kept on the service when they leave the program.
      await s.up(dynamic({ retainOnDelete: true }));
      // Step 2: the same resources under the plugin face; create adopts what is there.
      const run = await s.up(() => {
        new Raw(T("OrganizationMembers"), "legal", roster);
        new Raw(T("DatabaseUserPermissions"), "grant", grant);
      });
      expect(
        run.steps
          .filter((st) => st.op === "create")
          .map((st) => st.type)
          .sort(),
      ).toEqual([T("DatabaseUserPermissions"), T("OrganizationMembers")]);
      expect(run.steps.filter((st) => st.op === "delete").length).toBe(2);
      expect(since()).toEqual([]);
      expect(access()).toEqual(before);
      // And the plugin face now holds them: a no-change run is a no-change run.
      await s.up(
        () => {
          new Raw(T("OrganizationMembers"), "legal", roster);
          new Raw(T("DatabaseUserPermissions"), "grant", grant);
        },
        { expectNoChanges: true },
      );
    },
  );

  it("`pulumi do` reads a member and a grant by their ids and lists members, with no program and no state", async () => {
    east.reset();
    const read = async (kind: string, id: string) => {
      const r = await runAsync(
        "pulumi",
        ["do", "--package", path.join(PLUGIN_DIR, "pulumi-resource-reviewadmin"), `reviewadmin:${kind}`, "read", id, "--output", "json"],
        { env: { REVIEWADMIN_BASE_URL: east.url, REVIEWADMIN_API_KEY: east.keys.orgAdmin!, PULUMI_SKIP_UPDATE_CHECK: "true" } },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(east.keys.orgAdmin!);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    expect(await read("OrgMember", `${ORG}/ken@northwind.example`)).toMatchObject({
      userId: SEEDED.users.aiAdmin,
      permissions: ["AI_ADMIN"],
      status: "active",
    });
    expect(await read("DatabaseUserPermissions", `${DB}/${SEEDED.users.multiOrgMember}`)).toMatchObject({ permissions: ["DB_UPLOAD"] });
    // `list` answers with the same ids, ready to read or import.
    const listed = await runAsync(
      "pulumi",
      [
        "do",
        "--package",
        path.join(PLUGIN_DIR, "pulumi-resource-reviewadmin"),
        "reviewadmin:OrgMember",
        "list",
        "--input:organization-id",
        String(ORG),
        "--output",
        "json",
      ],
      { env: { REVIEWADMIN_BASE_URL: east.url, REVIEWADMIN_API_KEY: east.keys.orgAdmin!, PULUMI_SKIP_UPDATE_CHECK: "true" } },
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual({ id: `${ORG}/ken@northwind.example`, name: "ken@northwind.example" });
  });

  it(
    "the drift gate fails a preview naming who waits, and up repairs the rest then fails, as under the dynamic face",
    { timeout: 240_000 },
    async () => {
      const s = pluginStack("plugin-gate");
      const store = east.store;
      const everyone = Object.fromEntries(
        store.members.of(ORG).map((m) => [store.users.get(m.userId).email.toLowerCase(), { permissions: [...m.permissions] }]),
      );
      const program = () => {
        new Raw(T("OrganizationMembers"), "legal", { organizationId: ORG, mode: "additive", members: everyone });
      };
      await s.up(program);
      // In the web application, by Frances: an outsider made org admin, and Ken's permissions taken away.
      await control(east.url, "POST", "/clock", { advanceMs: 5000 });
      const added = await control(east.url, "POST", `/organizations/${ORG}/members`, {
        email: "mallory@evil.example",
        firstName: "Mallory",
        lastName: "Evil",
        permissions: ["ORG_ADMIN"],
        actingUserId: SEEDED.users.legalHoldAdmin,
      });
      expect(added.status).toBe(201);
      await control(east.url, "PATCH", `/organizations/${ORG}/members/${SEEDED.users.aiAdmin}`, { permissions: [] });

      const since = writesFrom(east);
      const preview = await failureOf(s.preview(program, { refresh: true }));
      expect(preview).toMatch(
        /nobody decided about: .*mallory@evil\.example \(ORG_ADMIN; changed at \S+ by Frances Allen <frances@northwind\.example> \(user 1005\) \(USER_ADDED\)\)/,
      );
      expect(since()).toEqual([]);

      // Refresh records them; the repair up applies the rest, then fails naming them.
      await s.refresh();
      const up = await failureOf(s.up(program));
      expect(up).toMatch(/mallory@evil\.example \(ORG_ADMIN/);
      expect(up).toMatch(/Everything else this roster declares was applied/);
      expect(store.members.get(ORG, SEEDED.users.aiAdmin).permissions).toEqual(everyone["ken@northwind.example"]!.permissions);
      expect(s.lastTranscript.text).not.toMatch(/\n\s+at \S+ \(/); // no stack frame anywhere
    },
  );

  it("anti-lockout refuses at preview to take ORG_ADMIN from the key's own user, before any write", async () => {
    const s = pluginStack("plugin-lockout");
    const ada = (permissions: string[]) => () => {
      new Raw(T("OrgMember"), "ada", { organizationId: ORG, email: "ada@northwind.example", permissions });
    };
    await s.up(ada(["ORG_ADMIN"]));
    const since = writesFrom(east);
    const preview = await failureOf(s.preview(ada([])));
    expect(preview).toContain(
      "updating OrgMember ada@northwind.example in organization 102: refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind.example> (user 1001), the user of the API key in use, locking this program out of organization 102. Set allowAdminRemoval: true to do it anyway.",
    );
    expect(since()).toEqual([]);
    expect(east.store.members.get(ORG, SEEDED.users.orgAdmin).permissions).toEqual(["ORG_ADMIN"]);
  });
});

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesIn(p) : [p];
  });
}
