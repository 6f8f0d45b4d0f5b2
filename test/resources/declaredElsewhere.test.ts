/**
 * What an authoritative roster registers as `declaredElsewhere`: the claims of the resources the
 * program declares beside it, registered after it or before it, whether the roster's args are
 * plain data (an exported roster) or wait on outputs. Under the SDK's mocks, so a slip in how the
 * program builds the input shows here in a second; the engine tests (handover, identity) show
 * what the roster then does with it. Also: a roster's packed outputs read back as the values they
 * hold (a small one is the value itself), a deflated one parsed only when the program reads it.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as reviewadmin from "../../provider";

const registered = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.set(args.name, args.inputs as Record<string, unknown>);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "declared",
    "test",
    false,
  );
});

/** The declaredElsewhere input the roster `name` registered (small: the map itself, contract/packed.ts). */
async function declaredBy(roster: reviewadmin.OrganizationMembers, name: string): Promise<Record<string, string>> {
  await new Promise((resolve) => roster.urn.apply(resolve));
  const map = registered.get(name)?.declaredElsewhere;
  expect(map).toBeTypeOf("object");
  return map as Record<string, string>;
}

describe("an authoritative roster's declaredElsewhere", () => {
  it("names an OrgMember registered after a roster of plain data", async () => {
    const roster = new reviewadmin.OrganizationMembers("plain-roster", {
      organizationId: 102,
      mode: "authoritative",
      members: { "bob@northwind.example": {} },
    });
    new reviewadmin.OrgMember("alan", { organizationId: 102, email: "Alan@Northwind.example", permissions: ["AI_ADMIN"] });
    // The roster asks for its organization's memberships (member:102:), the one thing it removes.
    expect(await declaredBy(roster, "plain-roster")).toEqual({ "member:102:email:alan@northwind.example": 'OrgMember "alan"' });
  });

  it("names them too when the roster's members wait on an output, and leaves out the roster itself", async () => {
    const roster = new reviewadmin.OrganizationMembers("pending-roster", {
      organizationId: 103,
      mode: "authoritative",
      members: pulumi.output({ "bob@northwind.example": { permissions: [] } }),
    });
    new reviewadmin.OrgMember("grace", { organizationId: 103, email: pulumi.output("grace@northwind.example") });
    expect(await declaredBy(roster, "pending-roster")).toEqual({ "member:103:email:grace@northwind.example": 'OrgMember "grace"' });
  });
});

describe("a roster's packed outputs in the program", () => {
  it("read as the values they hold, and are parsed only when read (most programs never read a roster's entries)", async () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      // Small: registered as the map itself (contract/packed.ts), nothing to parse.
      const small = new reviewadmin.OrganizationMembers("small-roster", {
        organizationId: 104,
        mode: "additive",
        members: { "bob@northwind.example": { permissions: ["AI_ADMIN"] } },
      });
      // Large: deflated text, parsed once, when first read.
      const many = Object.fromEntries(
        Array.from({ length: 2000 }, (_, i) => [`person${i}@northwind.example`, { permissions: ["AI_ADMIN" as const] }]),
      );
      const roster = new reviewadmin.OrganizationMembers("outputs-roster", { organizationId: 104, mode: "additive", members: many });
      await new Promise((resolve) => roster.id.apply(resolve));
      await new Promise((resolve) => small.id.apply(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(registered.get("small-roster")?.members).toEqual({ "bob@northwind.example": { permissions: ["AI_ADMIN"] } });
      expect(registered.get("outputs-roster")?.members).toMatch(/^deflate:/);
      const parsedLong = () => parse.mock.calls.filter(([arg]) => typeof arg === "string" && arg.includes('"person1999@')).length;
      expect(parsedLong()).toBe(0);
      expect(await new Promise((resolve) => roster.members.apply(resolve))).toEqual(many);
      expect(parsedLong()).toBe(1);
      // The same output at every read: parsed once.
      expect(roster.members).toBe(roster.members);
      expect(await new Promise((resolve) => small.members.apply(resolve))).toEqual({
        "bob@northwind.example": { permissions: ["AI_ADMIN"] },
      });
    } finally {
      parse.mockRestore();
    }
  });
});
