/**
 * Every handler, keyed by operation id: the groups of each handler file merged into one table.
 * To find the handler of an operation, look for its id (GetOrganizationUsers, ...) in the file
 * named after its resource.
 *
 * Both mistakes a table like this invites fail to compile: an operation of the route table
 * without a handler (`satisfies Record<OperationId, Handler>`, the ts-rest habit), and an
 * operation in two groups, where the later group would win silently (HandledTwice).
 */
import type { OperationId } from "../../contract";
import { accountHandlers } from "./account";
import { billingHandlers } from "./billing";
import { custodianHandlers } from "./custodians";
import { databaseUserHandlers } from "./databaseUsers";
import { databaseHandlers } from "./databases";
import { eventHandlers } from "./events";
import { invitationHandlers } from "./invitations";
import { memberHandlers } from "./members";
import { organizationHandlers } from "./organizations";
import { projectHandlers } from "./projects";
import type { Handler, HandlerContext } from "./types";
import { uploadHandlers } from "./uploads";

const groups = {
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

type Groups = typeof groups;
/** Operations that two groups both handle: never, or the build fails below. */
type HandledTwice = {
  [A in keyof Groups]: { [B in Exclude<keyof Groups, A>]: keyof Groups[A] & keyof Groups[B] }[Exclude<keyof Groups, A>];
}[keyof Groups];
/** The operations some group handles. */
type Handled = { [G in keyof Groups]: keyof Groups[G] }[keyof Groups];

// Fails to compile, naming the operation, when two groups handle one.
const eachOperationOnce: [HandledTwice] extends [never] ? true : { handledTwice: HandledTwice } = true;
void eachOperationOnce;

/** The handler of every operation the route table lists, each typed by its operation. */
export const handlers = Object.assign({}, ...Object.values(groups)) as { [K in Handled]: Handler<K> } satisfies {
  [K in OperationId]: Handler<K>;
};

/**
 * Calls the handler of `operationId`. The server parsed the context's params and body with the
 * route's own schemas, the ones its generated `parsedParams` and `parsedBody` are printed from,
 * so the context is the operation's: this is where the wire's values meet their types.
 */
export function callHandler<K extends OperationId>(operationId: K, ctx: HandlerContext<K>): ReturnType<Handler<K>> {
  return handlers[operationId](ctx);
}
