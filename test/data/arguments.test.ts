/**
 * Bad arguments are refused at call time, before anything is sent: every data source parses its
 * arguments with one strict schema, so an unknown key, a value outside the contract's enums or a
 * bad id fails with one line naming the argument, in the Promise and the Output form alike.
 */
import { beforeEach, describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { SEEDED } from "../../emulator";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

/** Every data source of the package, by name: its Promise form and its Output form. */
const dataSources = Object.entries(data)
  .filter(([name, fn]) => /^get[A-Z]\w*$/.test(name) && !name.endsWith("Output") && typeof fn === "function")
  .map(([name, fn]) => ({
    name,
    promiseForm: fn as (args: unknown, opts?: data.DataSourceOptions) => Promise<unknown>,
    outputForm: (data as Record<string, unknown>)[`${name}Output`] as (
      args: unknown,
      opts?: data.DataSourceOptions,
    ) => Parameters<typeof valueOf>[0],
  }));

/** The refusal of `args` by a data source, in both forms (which must agree); asserts nothing was sent. */
async function refusal(name: string, args: unknown): Promise<string> {
  const ds = dataSources.find((d) => d.name === name)!;
  const err = await failure(ds.promiseForm(args, s.as("orgAdmin")));
  expect(err.dataSource).toBe(name);
  expect(err.status).toBeUndefined();
  expect(err.message).not.toContain("\n");
  const outErr = await failure(valueOf(ds.outputForm(args, s.as("orgAdmin"))));
  expect(outErr.message).toBe(err.message);
  expect(s.emu.traffic.log.list()).toEqual([]);
  return err.message;
}

beforeEach(() => s.emu.traffic.log.reset());

describe("unknown arguments", () => {
  it("every data source has a strict schema: an unknown key is refused naming it, in both forms", async () => {
    expect(dataSources.length).toBeGreaterThanOrEqual(23);
    for (const { name } of dataSources) {
      expect(await refusal(name, { bogus: 1 })).toBe(`${name}: invalid argument 'bogus': not an argument of ${name}`);
    }
  });

  it("a near miss gets a 'did you mean'; the names of 0.1 get their new name", async () => {
    expect(await refusal("getOrganizationMembers", { organizationId: SEEDED.org, permision: "ORG_ADMIN" })).toBe(
      "getOrganizationMembers: invalid argument 'permision': not an argument of getOrganizationMembers (did you mean 'permission'?)",
    );
    expect(await refusal("getDatabases", { orgAdminAcess: false })).toBe(
      "getDatabases: invalid argument 'orgAdminAcess': not an argument of getDatabases (did you mean 'orgAdminAccess'?)",
    );
    expect(await refusal("getOrganizationInvitations", { organizationId: SEEDED.org, emial: "x@y.z" })).toBe(
      "getOrganizationInvitations: invalid argument 'emial': not an argument of getOrganizationInvitations (did you mean 'email'?)",
    );
    // An unknown key is named before the required argument it probably meant.
    expect(await refusal("getOrganizationMembers", { orgId: SEEDED.org })).toBe(
      "getOrganizationMembers: invalid argument 'orgId': not an argument of getOrganizationMembers (did you mean 'organizationId'?)",
    );
    expect(await refusal("getAccessMatrix", { organizationId: SEEDED.org, colour: "red" })).toBe(
      "getAccessMatrix: invalid argument 'colour': not an argument of getAccessMatrix",
    );
    // A filter another data source has is not an argument here.
    expect(await refusal("getDatabaseProjects", { databaseId: SEEDED.databases.open, organizationId: SEEDED.org })).toBe(
      "getDatabaseProjects: invalid argument 'organizationId': not an argument of getDatabaseProjects",
    );
  });
});

describe("enum values", () => {
  it("permission filters take the contract's permissions only", async () => {
    expect(await refusal("getOrganizationMembers", { organizationId: SEEDED.org, permission: "ORG_ADMN" })).toBe(
      'getOrganizationMembers: invalid argument \'permission\': must be one of ORG_ADMIN, CLOUD_MANAGEMENT_ADMIN, LEGAL_HOLD_ADMIN, AI_ADMIN, got "ORG_ADMN" (did you mean "ORG_ADMIN"?)',
    );
    expect(await refusal("getOrganizationInvitations", { organizationId: SEEDED.org, permission: "org_admin" })).toBe(
      'getOrganizationInvitations: invalid argument \'permission\': must be one of ORG_ADMIN, CLOUD_MANAGEMENT_ADMIN, LEGAL_HOLD_ADMIN, AI_ADMIN, got "org_admin" (did you mean "ORG_ADMIN"?)',
    );
    // A database permission is not an organization permission, and the other way round.
    expect(await refusal("getOrganizationMembers", { organizationId: SEEDED.org, permission: "DB_ADMIN" })).toBe(
      "getOrganizationMembers: invalid argument 'permission': must be one of ORG_ADMIN, CLOUD_MANAGEMENT_ADMIN, LEGAL_HOLD_ADMIN, AI_ADMIN, got \"DB_ADMIN\"",
    );
    expect(await refusal("getDatabaseUsers", { databaseId: SEEDED.databases.open, permission: "ORG_ADMIN" })).toBe(
      "getDatabaseUsers: invalid argument 'permission': must be one of DB_ADMIN, DB_UPLOAD, DB_DELETE, DB_LEGAL_HOLD, got \"ORG_ADMIN\"",
    );
  });

  it("an invitation status is pending or expired", async () => {
    expect(await refusal("getOrganizationInvitations", { organizationId: SEEDED.org, status: "Pending" })).toBe(
      'getOrganizationInvitations: invalid argument \'status\': must be one of pending, expired, got "Pending" (did you mean "pending"?)',
    );
  });
});

describe("ids", () => {
  it("ids follow the contract's id rule: a positive integer, or a string of its digits", async () => {
    const rule = "must be a positive integer id";
    expect(await refusal("getOrganization", { organizationId: 0 })).toBe(
      `getOrganization: invalid argument 'organizationId': ${rule}, got 0`,
    );
    expect(await refusal("getOrganization", { organizationId: 1.5 })).toBe(
      `getOrganization: invalid argument 'organizationId': ${rule}, got 1.5`,
    );
    expect(await refusal("getOrganization", { organizationId: "abc" })).toBe(
      `getOrganization: invalid argument 'organizationId': ${rule}, got "abc"`,
    );
    expect(await refusal("getOrganization", { organizationId: true })).toBe(
      `getOrganization: invalid argument 'organizationId': ${rule}, got true`,
    );
    expect(await refusal("getOrganizationMember", { organizationId: SEEDED.org, userId: -1 })).toBe(
      `getOrganizationMember: invalid argument 'userId': ${rule}, got -1`,
    );
    expect(await refusal("getDatabases", { organizationId: "x" })).toBe(
      `getDatabases: invalid argument 'organizationId': ${rule}, got "x"`,
    );
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, recent: true, userId: 0 })).toBe(
      `getActivityEvents: invalid argument 'userId': ${rule}, got 0`,
    );

    // A string of digits (what stack config gives) is read as the number.
    const org = await data.getOrganizationDatabases({ organizationId: String(SEEDED.org) }, s.as("orgAdmin"));
    expect(org.organizationId).toBe(SEEDED.org);
  });

  it("a required argument left out is named", async () => {
    expect(await refusal("getOrganization", {})).toBe("getOrganization: missing argument 'organizationId'");
    expect(await refusal("getOrganization", undefined)).toBe("getOrganization: missing argument 'organizationId'");
    expect(await refusal("getDatabaseUser", { databaseId: SEEDED.databases.open })).toBe("getDatabaseUser: missing argument 'userId'");
  });
});

describe("other argument types", () => {
  it("booleans, strings, lists and numbers are checked, nested values by their place", async () => {
    expect(await refusal("getOrganizationMembers", { organizationId: SEEDED.org, noPermissions: "yes" })).toBe(
      "getOrganizationMembers: invalid argument 'noPermissions': must be true or false, got \"yes\"",
    );
    expect(await refusal("getOrganizations", { nameContains: 5 })).toBe(
      "getOrganizations: invalid argument 'nameContains': must be a string, got 5",
    );
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, recent: true, types: ["SAML_UPDATED", 3] })).toBe(
      "getActivityEvents: invalid argument 'types[1]': must be a string, got 3",
    );
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, recent: true, types: "SAML_UPDATED" })).toBe(
      "getActivityEvents: invalid argument 'types': must be a list, got \"SAML_UPDATED\"",
    );
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, afterEventId: -1 })).toBe(
      "getActivityEvents: invalid argument 'afterEventId': must be a non-negative integer id from 0 to 9007199254740991, got -1",
    );
    expect(await refusal("getBillingSummary", { organizationId: SEEDED.org, months: 37 })).toBe(
      "getBillingSummary: invalid argument 'months': must be an integer from 1 to 36, got 37",
    );
    expect(await refusal("getDatabaseBilling", { databaseId: SEEDED.databases.open, year: "2025" })).toBe(
      "getDatabaseBilling: invalid argument 'year': must be a four-digit year from 1000 to 9999, got \"2025\"",
    );
    expect(await refusal("getOrganization", 102)).toBe("getOrganization: invalid arguments: must be an object, got 102");
  });

  it("a range that would be empty is refused, whether end is given or left out", async () => {
    const future = Date.now() + 86_400_000;
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, begin: future })).toBe(
      `getActivityEvents: invalid argument 'begin': must be earlier than now when 'end' is left out, got ${future}`,
    );
    expect(await refusal("getActivityEvents", { organizationId: SEEDED.org, begin: new Date(10), end: new Date(10) })).toBe(
      "getActivityEvents: invalid argument 'end': must be later than 'begin' (10), got Date 1970-01-01T00:00:00.010Z",
    );
  });
});
