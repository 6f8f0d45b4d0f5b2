/**
 * The contract between the emulator's HTTP adapter and its handlers. Handlers are plain
 * functions from a parsed request to `{status, data}`; they never write to the socket. Errors
 * are thrown as `EmulatorError` (see errors.ts) and turned into the one error shape in one place.
 *
 * Each handler is typed by its operation, as ts-rest types a router from its contract: its params
 * and body are the operation's once parsed, its `data` the operation's answer (all generated from
 * the route table into contract/types.generated.ts). test/emulator/handlerTypes.test.ts shows a
 * wrong answer failing to compile.
 */
import type { IncomingMessage } from "node:http";
import type { RouteDef } from "../../contract/routeDef";
import type { RouteTable } from "../../contract/routing";
import type { DataOf, OperationId, ParsedBodyOf, ParsedParamsOf } from "../../contract/types";
import type { Caller } from "../model/records";
import type { Store } from "../model/store";

/**
 * What the handler of operation K returns; the adapter wraps `data` in the route's envelope. Its
 * `data` is the operation's (generated from the route's data schema), so a handler that answers
 * the wrong shape does not compile. Without K: any operation's answer (the adapter's view).
 */
export interface HandlerResult<K extends OperationId = OperationId> {
  /** HTTP status, 200 when left out. */
  status?: number;
  /** The `data` member of the body (list routes: the page's items). */
  data?: DataOf<K>;
  /** List routes: the full URL of the next page, or null on the last page. */
  next?: string | null;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** The parsed parameters of every operation, one union. */
type AnyParsedParams = ParsedParamsOf<OperationId>;
/** Every parameter name some operation takes (an operation without any parses to `Record<string, never>`: no names). */
type ParamName = AnyParsedParams extends infer T ? (T extends unknown ? (string extends keyof T ? never : keyof T) : never) : never;
/** The parsed type of a parameter name, over every operation that takes it. */
type ParamType<P extends ParamName> = AnyParsedParams extends infer T
  ? T extends unknown
    ? P extends keyof T
      ? T[P]
      : never
    : never
  : never;
/**
 * The parameters a helper shared by several operations may read (paging's `after` and `limit`,
 * the guards' ids): every name some operation takes, with its parsed type, each optional.
 */
export type SharedParams = { [P in ParamName]?: ParamType<P> };

/** What every handler's context holds, whatever its operation. */
interface RequestFacts {
  route: RouteDef;
  /** The routes the emulator serves, for links it writes (links.next). */
  routes: RouteTable;
  /** Raw request body bytes (multipart routes only; up to 200 MB). */
  rawBody?: Buffer;
  req: IncomingMessage;
  /** The authenticated caller. */
  caller: Caller;
  /** The emulator's whole state. */
  store: Store;
  /** Base URL the emulator is served on (for links.next and part URLs), no trailing slash. */
  baseUrl: string;
  /** The request URL as received. */
  url: URL;
}

/**
 * Everything the handler of operation K may read about one request: its parameters and body as
 * the route's schemas parsed them (contract/types.generated.ts, `parsedParams` and `parsedBody`).
 */
export interface OperationContext<K extends OperationId> extends RequestFacts {
  /** Path and query parameters, parsed and coerced by the route's schema. */
  params: ParsedParamsOf<K>;
  /** JSON body parsed by the route's body schema (never for GET and multipart). */
  body: ParsedBodyOf<K>;
}

/** The context a helper shared by several operations takes (paging, guards): any operation's context is one. */
export interface SharedContext extends RequestFacts {
  params: SharedParams;
  body: unknown;
}

/**
 * The context of operation K's handler, or without K the context a shared helper takes. Two
 * interfaces rather than one conditional field, so that TypeScript compares an operation's
 * context with the shared one by structure (a conditional on K reads as if K were contravariant).
 */
export type HandlerContext<K extends OperationId = OperationId> = [OperationId] extends [K] ? SharedContext : OperationContext<K>;

/** The context of an operation whose path names an organization (`orgId`): what the organization guard takes. */
export type OrganizationContext = HandlerContext & { params: { orgId: number } };
/** The context of an operation whose path names a database (`databaseId`): what the database guard takes. */
export type DatabaseContext = HandlerContext & { params: { databaseId: number } };

/** Answers one routed, authenticated, validated request of operation K with `{status, data}`; refuses by throwing the errors of ../errors.ts. */
export type Handler<K extends OperationId = OperationId> = (ctx: HandlerContext<K>) => HandlerResult<K> | Promise<HandlerResult<K>>;

/**
 * The handlers of one file, keyed by operation id, each typed by its operation (ts-rest's router
 * shape): written `{...} satisfies HandlerGroup`, a handler's `ctx` is its operation's and its
 * answer must be too; the keys stay known to handlers/index.ts.
 */
export type HandlerGroup = { [K in OperationId]?: Handler<K> };
