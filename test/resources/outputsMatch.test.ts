/**
 * outputsMatch (provider/resources/support/lifecycle.ts): a resource's outputs list names every
 * field of its State, no more, or the build fails. The proofs are the `@ts-expect-error` lines:
 * `npx tsc -p tsconfig.json` fails if one of them stops being an error.
 */
import { describe, expect, it } from "vitest";
import type { DatabaseUserPermissionsState } from "../../provider/resources/databaseUserPermissions";
import { databaseUserPermissions } from "../../provider/resources/databaseUserPermissions";
import { outputsMatch, type ResourceDefinition } from "../../provider/resources/support/lifecycle";
import type { MemberFieldState } from "../../provider/resources/support/memberFieldTypes";

interface State {
  id: number;
  name?: string;
}

describe("outputsMatch", () => {
  it("takes a list naming every field of the state, and gives it back as is", () => {
    expect([...outputsMatch<State>()(["id", "name"])]).toEqual(["id", "name"]);
  });

  it("refuses a list that leaves a field out, or names one the state lacks", () => {
    // @ts-expect-error: "name" is a field of State the list leaves out (missingFromOutputs: "name")
    outputsMatch<State>()(["id"]);
    // @ts-expect-error: "extra" is no field of State
    outputsMatch<State>()(["id", "name", "extra"]);
    // The trap of the review: a State field forgotten in a real resource's list.
    // @ts-expect-error: "adopted" is missing
    outputsMatch<DatabaseUserPermissionsState>()(["databaseId", "userId", "permissions", "allowAdminRemoval", "active", "username"]);
  });

  it("checks generic states too (the member-field resources)", () => {
    function outputsOf<F extends string>(field: F) {
      type S = MemberFieldState<F, string[]>;
      // @ts-expect-error: "namedBy" is missing, whatever the field
      outputsMatch<S>()(["organizationId", "userId", "email", field, "allowAdminRemoval"]);
      const dates = ["expiresOn", "expiringSoon", "expiredOn"] as const;
      return outputsMatch<S>()(["organizationId", "userId", "email", field, "allowAdminRemoval", "namedBy", ...dates]);
    }
    expect(outputsOf("permissions")).toContain("permissions");
  });

  it("is the only way to give defineResource its outputs", () => {
    // @ts-expect-error: a plain array skips the check, so a definition refuses it
    const plain: ResourceDefinition<State, State>["outputs"] = ["id", "name"];
    expect(plain).toHaveLength(2);
    expect(databaseUserPermissions.definition.outputs).toContain("adopted");
  });
});
