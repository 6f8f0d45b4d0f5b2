/** E4 GetProjects and E29 GetDatabaseProjects. */
import { canAccessProject, canReadDatabase, demand } from "../model/access";
import type { HandlerGroup } from "./types";
import { page } from "../paging";
import { projectView } from "../views";

/** Handlers of the project lists. */
export const projectHandlers = {
  /** E4: the projects the caller can access (see model/access.ts canAccessProject). */
  GetProjects: (ctx) => {
    const { store, caller } = ctx;
    const visible = [...store.projects.values()].filter((p) => canAccessProject(store, caller, p));
    return page(ctx, visible.map((p) => projectView(store, p)));
  },

  /** E29: same access as E27 (kept when orgAdminAccess is false); projects carry emailThreadingStatus and lastLogin. */
  GetDatabaseProjects: (ctx) => {
    const { store, caller, params } = ctx;
    const db = store.database(params.databaseId);
    demand(canReadDatabase(store, caller, db), `listing projects of database ${db.id} needs DB_ADMIN, or org admin or parent org admin of its owner`);
    return page(ctx, store.projectsOf(db.id).map((p) => projectView(store, p, true)));
  },
} satisfies HandlerGroup;
