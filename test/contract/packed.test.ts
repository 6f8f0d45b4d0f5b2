/**
 * Packed roster properties (contract/packed.ts) on plain values: the same content is the same
 * text whatever the key order, states written before packing read as they are, values that are
 * not packed (unknowns, scalars, absent) pass through, and the packed properties are exactly the
 * properties each roster hides from the preview. The engine-level proof (an older state, a
 * no-change up) is test/engine/olderStates.test.ts and test/engine/rosterScale.test.ts.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, PACKED_PROPERTIES, packProps, unpackProps } from "../../contract/packed";
import type { ResourceImplementation } from "../../provider/resources/support/implementation";
import { implementationOf, resourceKinds } from "../../provider/runtime";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("packed roster properties", () => {
  it("writes the same content as the same text, whatever the order of keys", () => {
    const a = { members: { "b@x.example": { permissions: ["ORG_ADMIN"], firstName: "B" }, "a@x.example": { permissions: [] } } };
    const b = { members: { "a@x.example": { permissions: [] }, "b@x.example": { firstName: "B", permissions: ["ORG_ADMIN"] } } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    // Lists keep their order: a roster's lists are sorted by the provider, and order may mean something.
    expect(canonicalJson([2, 1])).toBe("[2,1]");
  });

  it("packs a roster's maps and lists, and reads them back", () => {
    const props = {
      organizationId: 102,
      mode: "additive",
      members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
      protectedEmails: ["ada@northwind.example"],
      __provider: "exports.handler = ...",
    };
    const packed = packProps("OrganizationMembers", props);
    expect(packed.members).toBe('{"ada@northwind.example":{"permissions":["ORG_ADMIN"]}}');
    expect(packed.protectedEmails).toBe('["ada@northwind.example"]');
    expect(packed.organizationId).toBe(102);
    expect(packed.mode).toBe("additive");
    expect(unpackProps("OrganizationMembers", packed)).toEqual(props);
  });

  it("reads a text once for the calls that share a map, and packs a value read from a text back as that text", () => {
    const text = '{"ada@northwind.example":{"permissions":["ORG_ADMIN"]}}';
    const read = new Map<string, unknown>();
    const olds = unpackProps("OrganizationMembers", { members: text }, read);
    const news = unpackProps("OrganizationMembers", { members: text, mode: "additive" }, read);
    expect(news.members).toBe(olds.members);
    expect(unpackProps("OrganizationMembers", { members: text }).members).not.toBe(olds.members);
    // Taken back only when it is the very object read: an equal copy is written again (the same text, canonical).
    const kept = packProps("OrganizationMembers", { members: olds.members }, { from: olds, text: { members: text } });
    expect(kept.members).toBe(text);
    const rewritten = packProps(
      "OrganizationMembers",
      { members: { ...(olds.members as unknown as object), "bob@x.example": {} } },
      { from: olds, text: { members: text } },
    );
    expect(rewritten.members).toBe('{"ada@northwind.example":{"permissions":["ORG_ADMIN"]},"bob@x.example":{}}');
  });

  it("reads a state written before packing, unknowns and absent values as they are", () => {
    const old = { databaseId: 2001, users: { "1003": { permissions: ["DB_UPLOAD"], active: true } } };
    expect(unpackProps("DatabaseUsers", old)).toBe(old);
    const preview = { databaseId: 2001, users: UNKNOWN, knownExceptions: undefined };
    expect(packProps("DatabaseUsers", preview)).toEqual(preview);
    expect(unpackProps("DatabaseUsers", preview)).toEqual(preview);
  });

  it("leaves every other kind as it is", () => {
    const grant = { databaseId: 2001, userId: 1003, permissions: ["DB_UPLOAD"] };
    expect(packProps("DatabaseUserPermissions", grant)).toBe(grant);
    expect(unpackProps("OrgMember", { email: "[not json" })).toEqual({ email: "[not json" });
  });

  it("packs exactly what each roster hides from the preview, and only rosters", () => {
    for (const kind of resourceKinds()) {
      const hidden = (implementationOf(kind) as ResourceImplementation).definition.hideDiffs ?? [];
      expect([...(PACKED_PROPERTIES[kind] ?? [])].sort(), kind).toEqual([...hidden].sort());
    }
  });
});
