/**
 * Control routes that set the stage: reseed or dump the world, add synthetic scale, and create
 * organizations, users, databases and projects (the API cannot create them).
 */
import { z } from "zod";
import { BadRequest } from "../errors";
import { addSyntheticDatabases, addSyntheticMembers, SEEDED } from "../model/seed";
import { databaseView, organizationView, projectView } from "../views";
import { id, parse, type ControlRoute } from "./types";

const Scale = z.object({
  organizationId: id.optional(),
  members: z.number().int().min(0).optional(),
  databases: z.number().int().min(0).optional(),
  usersPerDatabase: z.number().int().min(0).optional(),
});
/** A reseed may spread the scale over a firm's organizations (model/firm.ts). */
const ResetScale = Scale.extend({
  organizations: z.number().int().min(1).optional(),
  sharedMembers: z.number().int().min(0).optional(),
});

const Schemas = {
  reset: z.object({ seed: z.union([z.number().int(), z.literal("empty")]).optional(), scale: ResetScale.optional() }),
  scale: Scale,
  organization: z.object({ name: z.string().min(1), parentOrganizationId: id.optional() }),
  user: z.object({
    email: z.string().min(1),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    title: z.string().optional(),
  }),
  database: z.object({ organizationId: id, name: z.string().min(1), orgAdminAccess: z.boolean().optional() }),
  updateDatabase: z.object({ orgAdminAccess: z.boolean() }),
  project: z.object({
    name: z.string().min(1),
    displayName: z.string().optional(),
    partial: z.boolean().optional(),
    eca: z.boolean().optional(),
    suspended: z.boolean().optional(),
    userIds: z.array(id).optional(),
  }),
};

/** Reset, state, scale and the things only the control API creates. */
export const worldRoutes: ControlRoute[] = [
  {
    method: "POST",
    path: "/_emulator/reset",
    summary: 'Reseed the world: body {seed?: number | "empty", scale?}; returns the new named keys',
    handler: ({ runtime, body }) => {
      const b = parse(Schemas.reset, body);
      return { data: { keys: runtime.reseed(b.seed, b.scale) } };
    },
  },
  {
    method: "GET",
    path: "/_emulator/state",
    summary: "The whole world as JSON (what --state saves)",
    handler: ({ store }) => ({ data: store.toJSON() }),
  },
  {
    method: "POST",
    path: "/_emulator/scale",
    summary: "Add synthetic data: {organizationId? (default 102), members?, databases?, usersPerDatabase?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.scale, body);
      const orgId = b.organizationId ?? SEEDED.org;
      const members = b.members ? addSyntheticMembers(store, orgId, b.members).length : 0;
      const databases = b.databases ? addSyntheticDatabases(store, orgId, b.databases, b.usersPerDatabase ?? 0).map((d) => d.id) : [];
      return { data: { organizationId: orgId, membersAdded: members, databaseIds: databases } };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations",
    summary: "Create an organization: {name, parentOrganizationId?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.organization, body);
      return { status: 201, data: organizationView(store.organizations.create(b)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/users",
    summary: "Create a platform user (member of nothing): {email, firstName?, lastName?, title?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.user, body);
      if (store.users.findByEmail(b.email)) throw new BadRequest("body.email", "is already a platform user");
      const u = store.users.create(b);
      return { status: 201, data: { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName } };
    },
  },
  {
    method: "POST",
    path: "/_emulator/databases",
    summary: "Create a database: {organizationId, name, orgAdminAccess?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.database, body);
      return {
        status: 201,
        data: databaseView(
          store.databases.create({ owningOrganizationId: b.organizationId, name: b.name, orgAdminAccess: b.orgAdminAccess }),
        ),
      };
    },
  },
  {
    method: "PATCH",
    path: "/_emulator/databases/{databaseId}",
    summary: "Turn org admin access on or off: {orgAdminAccess}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.updateDatabase, body);
      return { data: databaseView(store.databases.setOrgAdminAccess(Number(params.databaseId), b.orgAdminAccess)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/databases/{databaseId}/projects",
    summary: "Create a project: {name, displayName?, partial?, eca?, suspended?, userIds?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.project, body);
      return { status: 201, data: projectView(store, store.databases.createProject({ databaseId: Number(params.databaseId), ...b })) };
    },
  },
];
