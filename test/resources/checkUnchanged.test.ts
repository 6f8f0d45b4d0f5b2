/**
 * Check of inputs the program found in normal form (lifecycle.ts RUN_MARKS `__normal`) that are
 * the stored inputs as they are: the schema is not run again, and a roster's texts go back as they
 * came (runtime.ts shim). At 28,007 people that was most of a no-change run's Check
 * (docs/engine.md). Plain calls of the plugin's face: a check of a known roster asks the service
 * nothing.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, packProps, unpackProps } from "../../contract/packed";
import { kindImplementation, shim } from "../../provider/runtime";
import { RUN_MARKS } from "../../provider/resources/support/lifecycle";
import { providerSource } from "../../provider/resources/support/resourceClass";

const KIND = "OrganizationMembers";
const args = (members: Record<string, unknown>) => ({ organizationId: 102, mode: "additive", members });
const sent = (members: Record<string, unknown>, marks: Record<string, unknown> = {}) =>
  packProps(KIND, { ...args(members), ...marks, __provider: providerSource(KIND) });
const normal = { [RUN_MARKS.normal]: true };
const odd = { "ada@northwind.example": { permissions: ["NO_SUCH_PERMISSION"] } };
const failed = ["members.ada@northwind.example.permissions.0"];

describe("check of inputs in normal form, stored as they are", () => {
  it("the program's parse says whether args are in normal form", () => {
    const { inNormalForm } = kindImplementation(KIND).definition;
    expect(inNormalForm!(args({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] } }))).toBe(true);
    // The schema lower-cases the email: not its normal form.
    expect(inNormalForm!(args({ "ADA@Northwind.example": { permissions: ["ORG_ADMIN"] } }))).toBe(false);
    expect(inNormalForm!(args(odd))).toBe(false);
  });

  it("gives the stored inputs back, the packed texts the very strings that came in", async () => {
    const first = await shim(KIND).check!({}, sent({ "ADA@Northwind.example": { permissions: ["ORG_ADMIN"] } }));
    expect(first.failures ?? []).toEqual([]);
    expect(unpackProps(KIND, first.inputs).members).toEqual({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] } });
    const again = await shim(KIND).check!(first.inputs, { ...first.inputs, ...normal });
    expect(again.failures ?? []).toEqual([]);
    expect(again.inputs).toEqual(first.inputs);
  });

  it("runs the schema unless both hold: marked normal, and equal to the stored inputs", async () => {
    // Stored inputs this schema refuses, as if an older version had stored them: only the mark and equality skip the schema.
    const stored = sent(odd);
    expect((await shim(KIND).check!(stored, sent(odd, normal))).failures ?? []).toEqual([]);
    expect((await shim(KIND).check!(stored, sent(odd))).failures?.map((f) => f.property)).toEqual(failed);
    const fine = sent({ "ada@northwind.example": { permissions: ["ORG_ADMIN"] } });
    expect((await shim(KIND).check!(fine, sent(odd, normal))).failures?.map((f) => f.property)).toEqual(failed);
  });

  it("gives back the program's texts, deflated, where the stored ones say the same in plain JSON (a state written before inputs were deflated)", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`person${String(i).padStart(4, "0")}@northwind.example`, { permissions: ["DB_UPLOAD"] }]),
    );
    const program = sent(many, normal);
    expect(program.members).toMatch(/^deflate:/);
    const stored = { ...sent(many), members: canonicalJson(many) };
    const checked = await shim(KIND).check!(stored, program);
    expect(checked.failures ?? []).toEqual([]);
    expect(checked.inputs.members).toBe(program.members);
    expect(unpackProps(KIND, checked.inputs).members).toEqual(many);
  });

  it("keeps the program's text of values in normal form, in its own key order; writes values it normalized anew", async () => {
    // As an older program wrote a small map (JSON.stringify, its own key order): the schema gives back an equal value.
    const program = { ...sent({}), members: '{"ada@northwind.example":{"permissions":["ORG_ADMIN"],"firstName":"Ada"}}' };
    const created = await shim(KIND).check!({}, program);
    expect(created.failures ?? []).toEqual([]);
    expect(created.inputs.members).toBe(program.members);
    // Not in normal form (the email's case): the checked value, small, so as a value (contract/packed.ts).
    const upper = { ...sent({}), members: '{"ADA@northwind.example":{"permissions":["ORG_ADMIN"],"firstName":"Ada"}}' };
    const normalized = await shim(KIND).check!({}, upper);
    expect(normalized.inputs.members).toEqual({ "ada@northwind.example": { firstName: "Ada", permissions: ["ORG_ADMIN"] } });
  });
});
