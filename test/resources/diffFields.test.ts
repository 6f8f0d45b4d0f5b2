/**
 * diffFields (provider/resources/support/lifecycle.ts), the per-person resources' diff rule, on
 * plain values: every input is compared unless the resource says why not (`ignore`), so an input
 * added later is a change without anyone listing it; a field left out of the inputs is not managed.
 */
import { describe, expect, it } from "vitest";
import { diffFields } from "../../provider/resources/support/lifecycle";

describe("diffFields", () => {
  const olds = { organizationId: 102, email: "ada@x.example", permissions: ["AI_ADMIN"], firstName: "Ada" };

  it("an input nobody listed is compared: a change in it is an update", () => {
    const news = { ...olds, someNewSetting: true };
    expect(diffFields(olds, news, { replaceOn: ["organizationId", "email"] })).toMatchObject({ changes: true, replaces: [] });
    expect(diffFields(olds, { ...olds }, { replaceOn: ["organizationId", "email"] }).changes).toBe(false);
  });

  it("replaces on the identity, ignores what the resource says it cannot change, and leaves unmanaged fields alone", () => {
    expect(diffFields(olds, { ...olds, email: "bob@x.example" }, { replaceOn: ["organizationId", "email"] })).toMatchObject({
      changes: true,
      replaces: ["email"],
    });
    const renamed = { ...olds, firstName: "Augusta" };
    expect(diffFields(olds, renamed, { replaceOn: ["organizationId", "email"], ignore: ["firstName"] }).changes).toBe(false);
    expect(diffFields(olds, renamed, { replaceOn: ["organizationId", "email"] }).changes).toBe(true);
    const { permissions: _left, ...unmanaged } = olds;
    expect(diffFields(olds, { ...unmanaged, __provider: "x" }, { replaceOn: ["organizationId", "email"] }).changes).toBe(false);
  });
});
