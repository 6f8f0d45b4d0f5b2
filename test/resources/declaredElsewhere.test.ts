/**
 * What an authoritative roster registers as `declaredElsewhere`: the claims of the resources the
 * program declares beside it, registered after it or before it, whether the roster's args are
 * plain data (an exported roster) or wait on outputs. Under the SDK's mocks, so a slip in how the
 * program builds the input shows here in a second; the engine tests (handover, identity) show
 * what the roster then does with it.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
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

/** The declaredElsewhere input the roster `name` registered, parsed from its text. */
async function declaredBy(roster: reviewadmin.OrganizationMembers, name: string): Promise<Record<string, string>> {
  await new Promise((resolve) => roster.urn.apply(resolve));
  const text = registered.get(name)?.declaredElsewhere;
  expect(typeof text).toBe("string");
  return JSON.parse(text as string) as Record<string, string>;
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
