/**
 * Every handler, keyed by operation id: the groups of each handler file merged into one table.
 * To find the handler of an operation, look for its id (GetOrganizationUsers, ...) in the file
 * named after its resource.
 */
import type { OperationId } from "../../contract";
import type { Handler, HandlerGroup } from "./types";
import { accountHandlers } from "./account";
import { billingHandlers } from "./billing";
import { custodianHandlers } from "./custodians";
import { databaseHandlers } from "./databases";
import { databaseUserHandlers } from "./databaseUsers";
import { eventHandlers } from "./events";
import { invitationHandlers } from "./invitations";
import { memberHandlers } from "./members";
import { organizationHandlers } from "./organizations";
import { projectHandlers } from "./projects";
import { uploadHandlers } from "./uploads";

const groups: Record<string, HandlerGroup> = {
  accountHandlers,
  organizationHandlers,
  projectHandlers,
  databaseHandlers,
  databaseUserHandlers,
  memberHandlers,
  invitationHandlers,
  billingHandlers,
  eventHandlers,
  custodianHandlers,
  uploadHandlers,
};

/** Merges the groups, refusing an operation handled twice (a copy-paste slip would otherwise pick one silently). */
function merge(all: Record<string, HandlerGroup>): Partial<Record<OperationId, Handler>> {
  const merged: Partial<Record<OperationId, Handler>> = {};
  const owner: Partial<Record<OperationId, string>> = {};
  for (const [name, group] of Object.entries(all)) {
    for (const [op, handler] of Object.entries(group) as [OperationId, Handler][]) {
      if (owner[op]) throw new Error(`operation ${op} is handled by both ${owner[op]} and ${name}`);
      owner[op] = name;
      merged[op] = handler;
    }
  }
  return merged;
}

/** The handler of every operation the emulator serves. */
export const handlers = merge(groups);
