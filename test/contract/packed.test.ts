/**
 * Packed roster properties (contract/packed.ts) on plain values: the one rule (a value whose JSON
 * is at most VALUE_UP_TO long as itself, up to DEFLATE_ABOVE as its text, longer deflated), the same content is the same
 * text whatever the key order, states written before packing or with JSON text read as they are, values that are
 * not packed (unknowns, scalars, absent) pass through, and the packed properties are exactly the
 * properties each roster hides from the preview. The engine-level proof (an older state, a
 * no-change up, a large roster's deflated outputs) is test/engine/olderStates.test.ts and
 * test/engine/gitops.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  DEFLATE_ABOVE,
  VALUE_UP_TO,
  deflatedPairs,
  HandedOn,
  PACKED_PROPERTIES,
  packAs,
  packProps,
  packValue,
  unpackProps,
  unpackValue,
} from "../../contract/packed";
import { kindImplementation, resourceKinds } from "../../provider/runtime";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("packed roster properties", () => {
  it("writes the same content as the same text, whatever the order of keys", () => {
    const a = { members: { "b@x.example": { permissions: ["ORG_ADMIN"], firstName: "B" }, "a@x.example": { permissions: [] } } };
    const b = { members: { "a@x.example": { permissions: [] }, "b@x.example": { firstName: "B", permissions: ["ORG_ADMIN"] } } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    // Lists keep their order: a roster's lists are sorted by the provider, and order may mean something.
    expect(canonicalJson([2, 1])).toBe("[2,1]");
  });

  it("packs by one rule: JSON at most VALUE_UP_TO long as the value, up to DEFLATE_ABOVE as its text, longer deflated", () => {
    // Just at each limit and just above it, on both sides' entry points (the program's packAs, the plugin's packValue).
    const sized = (n: number) => ({ "a@x.example": "x".repeat(n - '{"a@x.example":""}'.length) });
    expect(canonicalJson(sized(VALUE_UP_TO)).length).toBe(VALUE_UP_TO);
    expect(packValue(sized(VALUE_UP_TO))).toEqual(sized(VALUE_UP_TO));
    expect(packAs(sized(VALUE_UP_TO), JSON.stringify(sized(VALUE_UP_TO)))).toEqual(sized(VALUE_UP_TO));
    expect(packValue(sized(VALUE_UP_TO + 1))).toBe(canonicalJson(sized(VALUE_UP_TO + 1)));
    expect(packAs(sized(VALUE_UP_TO + 1), JSON.stringify(sized(VALUE_UP_TO + 1)))).toBe(JSON.stringify(sized(VALUE_UP_TO + 1)));
    expect(packValue(sized(DEFLATE_ABOVE))).toBe(canonicalJson(sized(DEFLATE_ABOVE)));
    expect(packValue(sized(DEFLATE_ABOVE + 1))).toMatch(/^deflate:/);
    expect(packAs(sized(DEFLATE_ABOVE + 1), JSON.stringify(sized(DEFLATE_ABOVE + 1)))).toMatch(/^deflate:/);
    expect(unpackValue(packValue(sized(DEFLATE_ABOVE + 1)) as string)).toEqual(sized(DEFLATE_ABOVE + 1));
    expect(unpackValue(packValue(sized(VALUE_UP_TO + 1)) as string)).toEqual(sized(VALUE_UP_TO + 1));
  });

  it("packs a small roster's maps and lists as the values themselves, and reads them back", () => {
    const props = {
      organizationId: 102,
      mode: "additive",
      members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
      protectedEmails: ["ada@northwind.example"],
      knownExceptions: ["linus@example.com"],
      __provider: "exports.handler = ...",
    };
    const packed = packProps("OrganizationMembers", props);
    expect(packed).toEqual(props);
    expect(packed.members).toEqual({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] } });
    expect(packed.knownExceptions).toEqual(["linus@example.com"]);
    expect(unpackProps("OrganizationMembers", packed)).toEqual(props);
  });

  it("reads a text once for the calls that share a map, and packs a value read from a text back as that text", () => {
    // JSON text, as versions before values wrote a small map: still read, and kept while unchanged.
    const text = '{"ada@northwind.example":{"permissions":["ORG_ADMIN"]}}';
    const read = new Map<string, unknown>();
    const olds = unpackProps("OrganizationMembers", { members: text }, read);
    const news = unpackProps("OrganizationMembers", { members: text, mode: "additive" }, read);
    expect(olds.members).toEqual({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] } });
    expect(news.members).toBe(olds.members);
    expect(unpackProps("OrganizationMembers", { members: text }).members).not.toBe(olds.members);
    // Taken back when it is the value read; a changed value is written anew, as a value (it is small).
    const kept = packProps("OrganizationMembers", { members: olds.members }, { text: { members: text }, value: olds });
    expect(kept.members).toBe(text);
    const rewritten = packProps(
      "OrganizationMembers",
      { members: { ...(olds.members as unknown as object), "bob@x.example": {} } },
      { text: { members: text }, value: olds },
    );
    expect(rewritten.members).toEqual({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] }, "bob@x.example": {} });
  });

  it("deflates a long value, keeps a short one a value, and reads both back", () => {
    const members = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [
        `person${i}@northwind.example`,
        { firstName: `P${i}`, permissions: ["DB_UPLOAD"], status: "active" },
      ]),
    );
    const outs = packProps("OrganizationMembers", {
      organizationId: 102,
      members,
      managed: { "ada@northwind.example": ["permissions"] },
    });
    expect(canonicalJson(members).length).toBeGreaterThan(DEFLATE_ABOVE);
    expect(outs.members).toMatch(/^deflate:[A-Za-z0-9+/=]+$/);
    expect((outs.members as unknown as string).length).toBeLessThan(canonicalJson(members).length / 5);
    expect(outs.managed).toEqual({ "ada@northwind.example": ["permissions"] });
    expect(unpackProps("OrganizationMembers", outs)).toEqual({
      organizationId: 102,
      members,
      managed: { "ada@northwind.example": ["permissions"] },
    });
    expect(unpackValue(outs.members as unknown as string)).toEqual(members);
    // Inputs the same: the program's registration and Check's request and answer carry them at every run.
    expect(packProps("OrganizationMembers", { members }).members).toBe(outs.members);
    expect(packProps("OrganizationMembers", { protectedEmails: ["ada@northwind.example"] }).protectedEmails).toEqual([
      "ada@northwind.example",
    ]);
  });

  it("keeps a stored output text, in whatever form, when the value read is the same", () => {
    const big = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}@x.example`, { permissions: ["ORG_ADMIN"], userId: i }]));
    for (const text of [canonicalJson(big), packProps("OrganizationMembers", { members: big }).members as unknown as string]) {
      const stored = unpackProps("OrganizationMembers", { members: text });
      // A read builds its values anew: an equal copy keeps the text, a change writes a new one.
      const same = packProps("OrganizationMembers", { members: structuredClone(big) }, { text: { members: text }, value: stored });
      expect(same.members).toBe(text);
      const changed = packProps(
        "OrganizationMembers",
        { members: { ...big, "new@x.example": { permissions: [] } } },
        { text: { members: text }, value: stored },
      );
      expect(unpackValue(changed.members as unknown as string)).toEqual({ ...big, "new@x.example": { permissions: [] } });
    }
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
      const hidden = kindImplementation(kind).definition.hideDiffs ?? [];
      expect([...(PACKED_PROPERTIES[kind] ?? [])].sort(), kind).toEqual([...hidden].sort());
    }
  });

  it("hands a long text's value on to one later step, which takes it instead of reading the text again", () => {
    const many = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`person${i}@northwind.example`, { permissions: ["DB_UPLOAD"] }]));
    const members = many(3000);
    const small = { "ada@northwind.example": ["permissions"] };
    const packed = packProps("OrganizationMembers", { members, managed: small });
    // Only deflated texts are handed on: a short value crosses as itself.
    const pairs = deflatedPairs("OrganizationMembers", packed, { members, managed: small });
    expect(pairs).toEqual([[packed.members, members]]);
    // A text packProps took back pairs with the value read from it, not with the equal one given.
    const read = unpackProps("OrganizationMembers", packed);
    const kept = { text: packed, value: read };
    const again = packProps("OrganizationMembers", { members: many(3000) }, kept);
    expect(again.members).toBe(packed.members);
    expect(deflatedPairs("OrganizationMembers", again, { members: many(3000) }, kept)[0]![1]).toBe(read.members);

    const handed = new HandedOn(2);
    handed.add(pairs);
    // The next step: olds and news carry the same text; it is taken once and shared by both, the
    // very object handed on (a read would make a new one).
    const step = handed.reader();
    const olds = unpackProps("OrganizationMembers", { members: packed.members }, step);
    const news = unpackProps("OrganizationMembers", { members: packed.members, mode: "additive" }, step);
    expect(olds.members).toBe(members);
    expect(news.members).toBe(members);
    // Taken: a later step reads the text itself.
    const later = unpackProps("OrganizationMembers", { members: packed.members }, handed.reader());
    expect(later.members).not.toBe(members);
    expect(later.members).toEqual(members);
    // At most `most` are kept, the oldest let go first.
    handed.add([
      ["deflate:a", { a: 1 }],
      ["deflate:b", { b: 1 }],
      ["deflate:c", { c: 1 }],
    ]);
    expect(handed.reader().get("deflate:a")).toBeUndefined();
    expect(handed.reader().get("deflate:c")).toEqual({ c: 1 });
  });
});
