/** E4 GetProjects and E29 GetDatabaseProjects. */
import { canAccessProject, canReadDatabase } from "../model/access";
import { page } from "../paging";
import { projectView } from "../views";
import { accessibleDatabase } from "./guards";
import type { HandlerGroup } from "./types";

/** E4 and E29 by operation id (handlers/index.ts merges the groups into the table). */
export const projectHandlers = {
  /** E4: the projects the caller can access (see model/access.ts canAccessProject). */
  GetProjects: (ctx) => {
    const { store, caller } = ctx;
    const visible = store.databases.allProjects().filter((p) => canAccessProject(store, caller, p));
    return page(
      ctx,
      visible.map((p) => projectView(store, p)),
    );
  },

  /** E29: same access as E27 (kept when orgAdminAccess is false); projects carry emailThreadingStatus and lastLogin. */
  GetDatabaseProjects: (ctx) => {
    const { store } = ctx;
    const db = accessibleDatabase(ctx, canReadDatabase);
    return page(
      ctx,
      store.databases.projectsOf(db.id).map((p) => projectView(store, p, true)),
    );
  },
} satisfies HandlerGroup;
