// A consumer's program: what a user writes after `npm install pulumi-reviewadmin`.
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";
import { startEmulator } from "pulumi-reviewadmin/emulator";
import { implementationOf } from "pulumi-reviewadmin/runtime";

const org = new pulumi.Config().getNumber("organizationId") ?? 102;
const roster = new reviewadmin.OrganizationMembers("members", {
  organizationId: org,
  mode: "additive",
  members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
});
const member = new reviewadmin.OrgMember("grace", { organizationId: org, email: "grace@northwind.example" });
const grant = new reviewadmin.DatabaseUserPermissions("alan", {
  databaseId: 2001,
  userId: member.userId.apply((id) => id ?? 0),
  permissions: ["DB_UPLOAD"],
});

// A resource output passes to a data source without a conversion.
export const databases = reviewadmin.getOrganizationDatabasesOutput({ organizationId: member.organizationId });
export const status: pulumi.Output<reviewadmin.MemberStatus> = member.status;
export const unmanaged = roster.unmanaged;
export const grantPermissions = grant.permissions;
export const kinds: (typeof startEmulator | typeof implementationOf)[] = [startEmulator, implementationOf];
