/** E1 GetDatabases, E27 GetDatabase, E30 GetDatabaseSize. */
import { canListDatabase, canReadDatabase } from "../model/access";
import { page } from "../paging";
import { databaseView } from "../views";
import { accessibleDatabase } from "./guards";
import type { HandlerGroup } from "./types";

/** E1, E27 and E30 by operation id (their billing is in billing.ts, their users in databaseUsers.ts). */
export const databaseHandlers = {
  /** E1: databases with DB_ADMIN for the caller, or owned by an organization it is org admin of. */
  GetDatabases: (ctx) => {
    const { store, caller } = ctx;
    const visible = store.databases.all().filter((db) => canListDatabase(store, caller, db));
    return page(ctx, visible.map(databaseView));
  },

  /** E27: DB_ADMIN, or org admin or parent org admin of the owner (summary: orgAdminAccess does not matter). */
  GetDatabase: (ctx) => ({ data: databaseView(accessibleDatabase(ctx, canReadDatabase)) }),

  /** E30: same access as E27; counts and sizes per kind of document. */
  GetDatabaseSize: (ctx) => ({ data: structuredClone(accessibleDatabase(ctx, canReadDatabase).size) }),
} satisfies HandlerGroup;
