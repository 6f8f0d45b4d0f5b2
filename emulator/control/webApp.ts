/**
 * Control routes for people acting in the web app "behind the program's back": accept or expire
 * an invitation, invite someone, add, change and remove members, set or remove database
 * permissions. They call the same store methods the API handlers call, so the rules are the same.
 *
 * Every change is written to the organization's activity log (E10-E12) as done by a person: the
 * body's `actingUserId`, by default the organization's first org admin (lowest user id), so that
 * an access review can say who made a change behind the program's back (issue 27).
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission, UserIdentifier } from "../../contract";
import { BadRequest } from "../errors";
import type { Store } from "../model/store";
import { databaseUserView, invitationView, memberView } from "../views";
import { id, parse, type ControlRoute } from "./types";

const permissions = z.array(OrganizationPermission);
/** Who does it in the web app (any user of the platform); left out: the organization's first org admin. */
const acting = { actingUserId: id.optional() };

/**
 * The acting user of a web-app change in `organizationId`: the one named, which must exist, or
 * the org admin with the lowest user id (null when the organization has none: the log then shows
 * no actor, as for a change the service made itself).
 */
function actorOf(store: Store, organizationId: number, named: number | undefined): number | null {
  if (named !== undefined) {
    if (!store.users.find(named)) throw new BadRequest("body.actingUserId", `no user ${named}: name an existing user as the acting user`);
    return named;
  }
  const admin = store.members
    .of(organizationId)
    .find((m) => m.permissions.includes("ORG_ADMIN") && store.users.get(m.userId).apiKeyOf === undefined);
  return admin?.userId ?? null;
}

const Schemas = {
  invitationRef: z.object({ organizationId: id, email: z.string().min(1), ...acting }),
  addMember: z
    .object({
      userId: id.optional(),
      email: z.string().optional(),
      firstName: z.string().optional(),
      lastName: z.string().optional(),
      permissions: permissions.optional(),
      ...acting,
    })
    .refine((v) => v.userId !== undefined || v.email !== undefined, { message: "must give userId or email", path: ["userId"] }),
  updateMember: z.object({ permissions: permissions.optional(), userIdentifiers: z.array(UserIdentifier).optional(), ...acting }),
  invite: z.object({
    email: z.string().min(1),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    permissions: permissions.optional(),
    ...acting,
  }),
  databaseUser: z.object({ permissions: z.array(DatabasePermission), ...acting }),
  /** DELETE routes take no other body: the acting user, if named, is all there is. */
  actingOnly: z.object(acting),
};

/** What people do in the web app, through the API's own rules. */
export const webAppRoutes: ControlRoute[] = [
  {
    method: "POST",
    path: "/_emulator/invitations/accept",
    summary: "The invitee accepts: {organizationId, email}; creates the user if new and the membership with the invitation's permissions",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      const inv = store.invitations.get(b.organizationId, b.email);
      if (store.invitations.isExpired(inv))
        throw new BadRequest("body.email", "the invitation has expired and cannot be accepted (re-send it first)");
      // The invitee accepts; the log names the inviter as the actor (as the service does), unless told otherwise.
      const { membership } = store.members.acceptInvitation(
        b.organizationId,
        b.email,
        b.actingUserId === undefined ? undefined : (actorOf(store, b.organizationId, b.actingUserId) ?? undefined),
      );
      return { data: memberView(store, membership) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/invitations/expire",
    summary: "Make an invitation expired now: {organizationId, email} (time passing, not a person: no event)",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      return { data: invitationView(store, store.invitations.expire(b.organizationId, b.email)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/invitations",
    summary: "Someone invites a person in the UI: {email, firstName?, lastName?, permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.invite, body);
      const orgId = Number(params.orgId);
      const existing = store.invitations.find(orgId, b.email);
      const { actingUserId, ...input } = b;
      const actor = actorOf(store, orgId, actingUserId);
      return { status: existing ? 200 : 201, data: invitationView(store, existing ?? store.invitations.create(orgId, input, actor)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/members",
    summary: "Someone adds a member in the UI: {userId | email (+ firstName, lastName: creates the user), permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.addMember, body);
      const orgId = Number(params.orgId);
      const actor = actorOf(store, orgId, b.actingUserId);
      let userId = b.userId;
      if (userId === undefined) {
        const email = b.email!;
        userId = (store.users.findByEmail(email) ?? store.users.create({ email, firstName: b.firstName, lastName: b.lastName })).id;
      }
      return { status: 201, data: memberView(store, store.members.add(orgId, userId, b.permissions ?? [], actor)) };
    },
  },
  {
    method: "PATCH",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone edits a member in the UI: {permissions?, userIdentifiers?} (left out: unchanged)",
    handler: ({ store, params, body }) => {
      const { actingUserId, ...update } = parse(Schemas.updateMember, body);
      const orgId = Number(params.orgId);
      return { data: memberView(store, store.members.update(orgId, Number(params.userId), update, actorOf(store, orgId, actingUserId))) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone removes a member in the UI: {actingUserId?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.actingOnly, body);
      const orgId = Number(params.orgId);
      store.members.remove(orgId, Number(params.userId), actorOf(store, orgId, b.actingUserId));
      return { status: 204 };
    },
  },
  {
    method: "PUT",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone sets database permissions in the UI: {permissions} (overwrites)",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.databaseUser, body);
      const databaseId = Number(params.databaseId);
      const userId = Number(params.userId);
      // The actor is checked before anything changes.
      const actor = actorOf(store, store.databases.get(databaseId).owningOrganizationId, b.actingUserId);
      const record = store.databases.setUser(databaseId, userId, b.permissions);
      store.databases.logWebAppChange(databaseId, userId, record.permissions, actor);
      return { data: databaseUserView(store, record) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone removes a user's database permissions in the UI: {actingUserId?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.actingOnly, body);
      const databaseId = Number(params.databaseId);
      const userId = Number(params.userId);
      const actor = actorOf(store, store.databases.get(databaseId).owningOrganizationId, b.actingUserId);
      store.databases.removeUser(databaseId, userId);
      store.databases.logWebAppChange(databaseId, userId, [], actor);
      return { status: 204 };
    },
  },
];
