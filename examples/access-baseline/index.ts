/**
 * access-baseline: an organization's access kept as code.
 *
 * - One OrganizationMembers roster, in additive mode, holds the people of access.ts with their
 *   organization permissions and user identifiers. Additive: people added in the web application
 *   are never removed, they are listed in the `notInBaseline` output for the next access review.
 * - One DatabaseUserPermissions per person and database holds database permissions.
 * - One Invitation per person who has no account yet.
 *
 * Credentials are the provider's own stack config (`reviewadmin:apiKey`, `reviewadmin:baseUrl`);
 * this program reads only `organizationId` (default 102, the emulator's Northwind Legal).
 */
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";
import { invitations, people } from "./access";

const config = new pulumi.Config();
const organizationId = config.getNumber("organizationId") ?? 102;

const roster = new reviewadmin.OrganizationMembers("members", {
  organizationId,
  mode: "additive",
  members: Object.fromEntries(
    people.map((p) => [
      p.email,
      { firstName: p.firstName, lastName: p.lastName, permissions: p.permissions, userIdentifiers: p.identifiers },
    ]),
  ),
});

// Database permissions need the person's user id, which the roster knows once they are a member
// (a person added by this very run gets theirs during the run). A preview that creates or changes
// the roster sees its planned inputs, which carry no user ids yet: the id stays unknown there.
const grants: { email: string; databaseId: number; grant: reviewadmin.DatabaseUserPermissions }[] = [];
for (const person of people) {
  for (const [database, permissions] of Object.entries(person.databases ?? {})) {
    const databaseId = Number(database);
    const userId = roster.members.apply((members): number => {
      const live = members[person.email];
      if (live?.userId == null) {
        const planned = live !== undefined && !("status" in live);
        if (planned && pulumi.runtime.isDryRun()) return pulumi.unknown as unknown as number;
        throw new Error(
          `${person.email} is not a member yet (${live?.status ?? "not in the organization"}): database permissions can be granted once they are`,
        );
      }
      return live.userId;
    });
    const name = `${person.email.split("@")[0]}-db${databaseId}`;
    grants.push({
      email: person.email,
      databaseId,
      grant: new reviewadmin.DatabaseUserPermissions(name, { databaseId, userId, permissions }),
    });
  }
}

const invited = invitations.map(
  (i) =>
    new reviewadmin.Invitation(`invite-${i.email.split("@")[0]}`, {
      organizationId,
      email: i.email,
      firstName: i.firstName,
      lastName: i.lastName,
      permissions: i.permissions,
    }),
);

/** Each managed person's status in the organization: active, invited or expired. */
export const memberStatuses = roster.members.apply((members) =>
  Object.fromEntries(Object.entries(members).map(([email, m]) => [email, m.status])),
);

/** Each managed invitation's status: pending, expired or accepted. */
export const invitationStatuses = pulumi
  .all(invited.map((i) => pulumi.all([i.email, i.status])))
  .apply((pairs) => Object.fromEntries(pairs));

/** Database permissions as they stand, per person and database. */
export const databaseGrants = pulumi.all(
  grants.map((g) => g.grant.permissions.apply((permissions) => ({ email: g.email, databaseId: g.databaseId, permissions }))),
);

/** People in the organization (members and invitations) whom this program does not manage: review them. */
export const notInBaseline = roster.unmanaged.apply((unmanaged) =>
  unmanaged
    .filter((u) => !invitations.some((i) => i.email.toLowerCase() === u.email))
    .map((u) => ({ email: u.email, status: u.status, permissions: u.permissions })),
);
