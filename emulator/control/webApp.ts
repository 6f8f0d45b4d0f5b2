/**
 * Control routes for people acting in the web app "behind the program's back": accept or expire
 * an invitation, invite someone, add, change and remove members, set or remove database
 * permissions. They call the same store methods the API handlers call, so the rules are the same.
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission, UserIdentifier } from "../../contract";
import { BadRequest } from "../errors";
import { databaseUserView, invitationView, memberView } from "../views";
import { id, parse, type ControlRoute } from "./types";

const permissions = z.array(OrganizationPermission);

const Schemas = {
  invitationRef: z.object({ organizationId: id, email: z.string().min(1) }),
  addMember: z
    .object({
      userId: id.optional(),
      email: z.string().optional(),
      firstName: z.string().optional(),
      lastName: z.string().optional(),
      permissions: permissions.optional(),
    })
    .refine((v) => v.userId !== undefined || v.email !== undefined, { message: "must give userId or email", path: ["userId"] }),
  updateMember: z.object({ permissions: permissions.optional(), userIdentifiers: z.array(UserIdentifier).optional() }),
  invite: z.object({
    email: z.string().min(1),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    permissions: permissions.optional(),
  }),
  databaseUser: z.object({ permissions: z.array(DatabasePermission) }),
};

/** What people do in the web app, through the API's own rules. */
export const webAppRoutes: ControlRoute[] = [
  {
    method: "POST",
    path: "/_emulator/invitations/accept",
    summary: "The invitee accepts: {organizationId, email}; creates the user if new and the membership with the invitation's permissions",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      const inv = store.invitation(b.organizationId, b.email);
      if (store.isExpired(inv)) throw new BadRequest("body.email", "the invitation has expired and cannot be accepted (re-send it first)");
      const { membership } = store.acceptInvitation(b.organizationId, b.email);
      return { data: memberView(store, membership) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/invitations/expire",
    summary: "Make an invitation expired now: {organizationId, email}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      return { data: invitationView(store, store.expireInvitation(b.organizationId, b.email)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/invitations",
    summary: "Someone invites a person in the UI: {email, firstName?, lastName?, permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.invite, body);
      const orgId = Number(params.orgId);
      const existing = store.findInvitation(orgId, b.email);
      return { status: existing ? 200 : 201, data: invitationView(store, existing ?? store.createInvitation(orgId, b)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/members",
    summary: "Someone adds a member in the UI: {userId | email (+ firstName, lastName: creates the user), permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.addMember, body);
      let userId = b.userId;
      if (userId === undefined) {
        const email = b.email!;
        userId = (store.findUserByEmail(email) ?? store.createUser({ email, firstName: b.firstName, lastName: b.lastName })).id;
      }
      return { status: 201, data: memberView(store, store.addMember(Number(params.orgId), userId, b.permissions ?? [])) };
    },
  },
  {
    method: "PATCH",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone edits a member in the UI: {permissions?, userIdentifiers?} (left out: unchanged)",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.updateMember, body);
      return { data: memberView(store, store.updateMember(Number(params.orgId), Number(params.userId), b)) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone removes a member in the UI",
    handler: ({ store, params }) => {
      store.removeMember(Number(params.orgId), Number(params.userId));
      return { status: 204 };
    },
  },
  {
    method: "PUT",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone sets database permissions in the UI: {permissions} (overwrites)",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.databaseUser, body);
      return { data: databaseUserView(store, store.setDatabaseUser(Number(params.databaseId), Number(params.userId), b.permissions)) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone removes a user's database permissions in the UI",
    handler: ({ store, params }) => {
      store.removeDatabaseUser(Number(params.databaseId), Number(params.userId));
      return { status: 204 };
    },
  },
];
