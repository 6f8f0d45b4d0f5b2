/**
 * The emulator's handlers are typed per operation (emulator/handlers/types.ts, ts-rest's router
 * shape): a handler's params and body are its operation's as parsed, and its answer must be its
 * operation's data. These are compile-time facts: `npx tsc -p tsconfig.json` type-checks this file,
 * and each `@ts-expect-error` fails the build the day its line compiles. The run-time part only
 * shows the well-typed groups are real values.
 */
import { describe, expect, it } from "vitest";
import { handlers } from "../../emulator/handlers";
import type { HandlerGroup } from "../../emulator/handlers/types";

const wrongAnswers = {
  // @ts-expect-error GetOrganizationUsers answers Member[]: one organization is the wrong shape.
  GetOrganizationUsers: () => ({ data: { id: 102, name: "Northwind Legal" } }),
  // @ts-expect-error GetCurrentUser answers a User, whose id is a number.
  GetCurrentUser: () => ({ data: { id: "1001" } }),
  // @ts-expect-error GetOrganizationInvitations answers {invitations: [...]}, not the bare list.
  GetOrganizationInvitations: async () => ({ data: [] }),
} satisfies HandlerGroup;

const wrongReads = {
  GetOrganizationUsers: (ctx) => {
    // @ts-expect-error GetOrganizationUsers names an organization, not a database.
    void ctx.params.databaseId;
    // @ts-expect-error GetOrganizationUsers takes no body.
    void ctx.body.users;
    const orgId: number = ctx.params.orgId; // parsed: a number, not the wire's string
    return { data: [], next: orgId > 0 ? null : null };
  },
  PostOrganizationUsers: (ctx) => {
    // @ts-expect-error E19's people carry an email, not an id.
    void ctx.body.users[0]!.id;
    return { data: { invalid: ctx.body.users.map((u) => u.email), invites: [], users: [] } };
  },
} satisfies HandlerGroup;

describe("handler types", () => {
  it("give every operation of the route table a handler, and the examples above are values", () => {
    expect(typeof handlers.GetOrganizationUsers).toBe("function");
    expect(Object.keys(wrongAnswers)).toHaveLength(3);
    expect(Object.keys(wrongReads)).toHaveLength(2);
  });
});
