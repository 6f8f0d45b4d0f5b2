/**
 * E23 GetDatabaseUsers, E24 DeleteDatabaseUser, E25 GetDatabaseUser, E26 PutDatabaseUser.
 * Access: DB_ADMIN on the database, or org admin of its owner when the database allows org
 * admin access (model/access.ts canManageDatabaseUsers). Order of checks: database (404), access
 * (403), user (404).
 */
import { canManageDatabaseUsers } from "../model/access";
import { page } from "../paging";
import { databaseUserView } from "../views";
import { accessibleDatabase } from "./guards";
import type { DatabaseContext, HandlerGroup } from "./types";

/** The database of the request, after the access check. */
function managedDatabase(ctx: DatabaseContext): number {
  return accessibleDatabase(ctx, canManageDatabaseUsers).id;
}

/** E23 to E26 by operation id (handlers/index.ts merges the groups into the table). */
export const databaseUserHandlers = {
  /** E23: users holding permissions on the database, in user id order. */
  GetDatabaseUsers: (ctx) => {
    const dbId = managedDatabase(ctx);
    const result = page(ctx, ctx.store.databases.usersOf(dbId), { key: (du) => du.userId });
    return { ...result, data: result.data.map((du) => databaseUserView(ctx.store, du)) };
  },

  /** E24: removes the user's permissions on the database; 204 (the success body is not shown). */
  DeleteDatabaseUser: (ctx) => {
    const dbId = managedDatabase(ctx);
    ctx.store.databases.removeUser(dbId, ctx.params.userId);
    return { status: 204 };
  },

  /** E25: one user's permissions on the database. */
  GetDatabaseUser: (ctx) => {
    const dbId = managedDatabase(ctx);
    return { data: databaseUserView(ctx.store, ctx.store.databases.user(dbId, ctx.params.userId)) };
  },

  /** E26: overwrites the user's permissions on the database (any platform user; 404 for an unknown one). */
  PutDatabaseUser: (ctx) => {
    const dbId = managedDatabase(ctx);
    const record = ctx.store.databases.setUser(dbId, ctx.params.userId, ctx.body.databasePermissions);
    return { data: databaseUserView(ctx.store, record) };
  },
} satisfies HandlerGroup;
