/**
 * The API key never reaches state: not in the serialized provider (`__provider`) of any resource
 * kind, not even after `configure` has run with the key, not in any input or output of a created
 * resource, and not in error messages or what a run says. The key travels only as the stack's
 * secret config, read by `configure` into the run (provider/resources/support/run.ts).
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { providerText, useResourceWorld } from "../support/providerWorld";
import { errorOf } from "../support/scenario";
import { dynamicFace } from "../../provider/runtime";
import { Run } from "../../provider/resources/support/run";

const KINDS = [
  "OrgMember",
  "OrgMemberPermissions",
  "UserIdentifiers",
  "DatabaseUserPermissions",
  "Invitation",
  "CustodianDirectorySync",
  "OrganizationMembers",
  "DatabaseUsers",
];
const { world, res } = useResourceWorld();

/**
 * The key and each of its secret parts. A key is `ra.<8 chars>.<56 chars>`: the first
 * dot-separated segment is a fixed literal prefix ("ra", in every key and in plenty of words),
 * so the parts searched for are the whole key and the two segments after it.
 */
function secretParts(key: string): string[] {
  const [prefix, ...segments] = key.split(".");
  expect(prefix).toBe("ra");
  expect(segments.map((s) => s.length)).toEqual([8, 56]);
  return [key, ...segments];
}

/** Every key of the seeded world, and each of their secret parts. */
const allSecrets = () => Object.values(world().emu.keys).flatMap(secretParts);

function expectNoSecret(text: string, what: string, secrets = allSecrets()): void {
  for (const s of secrets)
    expect(text.includes(s), `${what} contains ${s === world().key ? "the API key" : `a part of a key (${s.slice(0, 3)}…)`}`).toBe(false);
}

describe("the provider text (__provider)", () => {
  // Stored twice in every resource's state: it must stay one line that loads the installed code.
  it("is one line naming the kind, which loads the installed package's provider", async () => {
    for (const kind of KINDS) {
      const text = await providerText(kind);
      expect(text).toBe(`exports.handler = () => require("pulumi-reviewadmin/runtime").shim("${kind}");\n`);
    }
  });
});

describe("the API key never reaches state", () => {
  it("is not in the serialized provider of any resource kind", async () => {
    expect(process.env.REVIEWADMIN_API_KEY).toBeUndefined(); // so the runs below get the key from configure only
    for (const kind of KINDS) {
      const text = await providerText(kind);
      expect(text).toContain(`"${kind}"`);
      expectNoSecret(text, `__provider of ${kind}`);
    }
  });

  it("is read at configure into the run, never into the provider text", async () => {
    const config: Record<string, string> = { "reviewadmin:apiKey": world().key, "reviewadmin:baseUrl": world().emu.url };
    const run = new Run();
    const face = dynamicFace(run);
    try {
      for (const kind of KINDS) {
        await face(kind).configure!({ config: { get: (k: string) => config[k] } } as any);
        expectNoSecret(await providerText(kind), `__provider of ${kind} after configure`);
      }
      expect(run.settings().apiKey).toBe(world().key);
    } finally {
      await run.close();
    }
  });

  it("is not in any input or output of a created resource of each kind, nor in what the run says", async () => {
    const results = await world().run(async (run) => {
      const up = async (kind: string, inputs: Record<string, unknown>) => {
        const r = await (await res(run, `secret-${kind}`, kind)).up(inputs);
        expect(r.op).toBe("create");
        return { kind, ...r };
      };
      const all = await Promise.all([
        up("OrgMember", { organizationId: SEEDED.org, email: "sam.secret@example.com", permissions: ["AI_ADMIN"] }),
        up("OrgMemberPermissions", { organizationId: SEEDED.org, userId: SEEDED.users.member, permissions: ["AI_ADMIN"] }),
        up("UserIdentifiers", {
          organizationId: SEEDED.org,
          email: "barbara@northwind.example",
          identifiers: [{ abbreviation: "BL", label: "Barbara" }],
        }),
        up("DatabaseUserPermissions", { databaseId: SEEDED.databases.open, userId: SEEDED.users.member, permissions: ["DB_UPLOAD"] }),
        up("Invitation", { organizationId: SEEDED.org, email: "ivan.secret@example.com" }),
        up("CustodianDirectorySync", { directoryId: SEEDED.directories.org, csv: "email,name\ncarl@example.com,Carl\n" }),
      ]);
      // A refused call's message carries no key either.
      const denied = await errorOf(
        (await res(run, "secret-denied", "OrgMember")).up({ organizationId: SEEDED.otherOrg, email: "x@example.com" }),
      );
      expect(denied.message).toMatch(/403/);
      expectNoSecret(denied.message, "the error");
      expectNoSecret(run.plugin.stdout + run.plugin.stderr, "what the run said");
      return all;
    });
    for (const r of results) {
      expectNoSecret(JSON.stringify(r.outs), `outputs of ${r.kind}`);
      expectNoSecret(JSON.stringify(r.inputs), `inputs of ${r.kind}`);
      // The `__provider` stored after a configured run is the text serialized before any configure.
      expect(r.outs.__provider).toBe(await providerText(r.kind));
      expect(r.inputs.__provider).toBe(await providerText(r.kind));
    }
    expectNoSecret(JSON.stringify([...world().states]), "the state of every resource");
  });

  it("a rejected key is not echoed in the error or the logs", async () => {
    const fake = `ra.ZZZZ9999.${"Q".repeat(56)}`;
    await world().run(async (run) =>
      (await res(run, "secret-Invitation", "Invitation")).up({ organizationId: SEEDED.org, email: "ivan.secret@example.com" }),
    );
    await world().run(
      async (run) => {
        const err = await errorOf(
          (await res(run, "secret-bad-key", "Invitation")).up({ organizationId: SEEDED.org, email: "x@example.com" }),
        );
        expect(err.message).toMatch(/^creating Invitation of x@example.com to organization 102: the service answered 401/);
        expectNoSecret(err.message, "the error", secretParts(fake));
        // A failed read comes back once, worded (the plugin no longer prints it with its stack): no key there either.
        const d = await res(run, "secret-Invitation", "Invitation");
        await expect(d.refresh()).rejects.toThrow(/reading Invitation of ivan.secret@example.com .*401/);
        expectNoSecret(run.plugin.stdout + run.plugin.stderr, "what the run said", secretParts(fake));
      },
      { key: fake },
    );
  });
});
