/**
 * Routing over the route table: builds a request path from an operation's parameters (the
 * client) and finds the operation of an incoming request (the emulator). A RouteTable is the
 * routes one client or one emulator uses: the built-in rows of routes.ts, each with its method
 * and path possibly replaced by the vendor's own (read from its OpenAPI document by openapi.ts).
 * The module-level functions route over the built-in table.
 */
import { ParameterError } from "./parameterError";
import type { HttpMethod, RouteDef } from "./routeDef";
import { routeList } from "./routes";
import type { OperationId } from "./types";

/** A `{name}` segment of a path template (the built-in rows use word characters only). */
const PLACEHOLDER = /\{(\w+)\}/g;

/** Names of the `{name}` segments of a path template. */
export function pathParamNames(route: Pick<RouteDef, "path">): string[] {
  return [...route.path.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** Fills a path template and appends the remaining defined params as the query string. */
export function buildPath(route: RouteDef, params: Record<string, unknown>): string {
  const used = new Set<string>();
  const path = route.path.replace(PLACEHOLDER, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(params[name]));
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (!used.has(k) && v !== undefined && v !== null) query.set(k, String(v));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A route's path as a regular expression: each `{name}` one segment, literal text escaped, an optional trailing slash. */
function patternOf(path: string): string {
  return (
    path
      .split(PLACEHOLDER)
      .map((part, i) => (i % 2 === 1 ? "([^/]+)" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("") + "/?"
  );
}

/** What a PathRouter routes over: a method and a path template (RouteDef, the emulator's control routes). */
export interface RoutedPath {
  readonly method: string;
  readonly path: string;
  /** Named in the ParameterError of a malformed path parameter, when the row has one. */
  readonly operationId?: string;
}

interface Matcher<R extends RoutedPath> {
  route: R;
  names: string[];
  re: RegExp;
  literalLength: number;
}

function matcherOf<R extends RoutedPath>(route: R): Matcher<R> {
  return {
    route,
    names: pathParamNames(route),
    re: new RegExp(`^${patternOf(route.path)}$`),
    literalLength: route.path.replace(PLACEHOLDER, "").length,
  };
}

/** A path segment %-decoded, or undefined when its %-escapes are malformed (`%ZZ`, a lone `%`, bad UTF-8). */
function decodeSegment(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Where one operation is served when it differs from its built-in row: a method, and a path template whose `{name}`s are the row's own parameter names. */
export interface RouteOverride {
  readonly method: HttpMethod;
  readonly path: string;
}

/** The leading literal segments every path shares (`/v1` for the built-in rows), or "". */
function sharedPrefix(list: readonly RouteDef[]): string {
  const literal = (path: string) => {
    const segments = path.split("/").slice(1);
    const end = segments.findIndex((s) => s.includes("{"));
    return end === -1 ? segments : segments.slice(0, end);
  };
  let shared = literal(list[0]?.path ?? "");
  for (const r of list) {
    const segments = literal(r.path);
    let n = 0;
    while (n < shared.length && n < segments.length && shared[n] === segments[n]) n++;
    // A route whose whole path is the shared part (`/v1`) leaves its last segment out: it names the operation.
    shared = shared.slice(0, Math.min(n, segments.length - 1));
  }
  return shared.length ? `/${shared.join("/")}` : "";
}

/**
 * The routes one client or one emulator uses: every built-in row, with the method and path of
 * the operations in `overrides` replaced. Facts other than method and path (parameters, bodies,
 * schemas, access) are always the row's. Throws an Error when an override's path does not name
 * exactly the row's path parameters (openapi.ts maps names before it builds one).
 */
export class RouteTable {
  /** Every route by operation id. */
  readonly routes: Readonly<Record<OperationId, RouteDef>>;
  /** Every route, in the contract's order. */
  readonly list: readonly RouteDef[];
  /** Where the routes come from: `built-in`, or the OpenAPI document's file. */
  readonly source: string;
  /** The leading literal segments every path shares: `/v1` for the built-in rows (a base URL ending in it is trimmed by the client). */
  readonly prefix: string;
  readonly #router: PathRouter<RouteDef>;

  constructor(overrides: Partial<Record<OperationId, RouteOverride>> = {}, source = "built-in") {
    const list = routeList.map((row) => {
      const o = overrides[row.operationId as OperationId];
      if (!o) return row;
      const route: RouteDef = { ...row, method: o.method, path: o.path };
      const ours = pathParamNames(row).sort().join(", ");
      const theirs = pathParamNames(route).sort().join(", ");
      if (ours !== theirs) throw new Error(`route override of ${row.operationId}: path ${o.path} must name {${ours}}, names {${theirs}}`);
      return route;
    });
    this.list = list;
    this.routes = Object.fromEntries(list.map((r) => [r.operationId, r])) as Record<OperationId, RouteDef>;
    this.source = source;
    this.prefix = sharedPrefix(list);
    this.#router = new PathRouter(list);
  }

  /** The route of an operation id, or undefined for an id the contract does not have. */
  route(operationId: string): RouteDef | undefined {
    return Object.hasOwn(this.routes, operationId) ? this.routes[operationId as OperationId] : undefined;
  }

  /**
   * Finds the route for a method and path (without query); path parameters come back as strings.
   * A parameter with a malformed %-escape is a ParameterError naming it (a server answers 400).
   */
  match(method: string, pathname: string): { route: RouteDef; pathParams: Record<string, string> } | undefined {
    return this.#router.match(method, pathname);
  }

  /** True when some route (of any method) serves this path: lets a server answer 405 rather than 404. */
  pathIsKnown(pathname: string): boolean {
    return this.#router.pathIsKnown(pathname);
  }
}

/**
 * Finds the row of a method and path among any rows with path templates: RouteTable's matcher,
 * which the emulator's control API routes with too, so both read paths by one rule (each `{name}`
 * one %-decoded segment, an optional trailing slash, the most specific row first).
 */
export class PathRouter<R extends RoutedPath> {
  /** Most specific first, so /events/recent wins over /events/after/{id}. */
  readonly #matchers: Matcher<R>[];

  constructor(rows: readonly R[]) {
    this.#matchers = rows.map(matcherOf).sort((a, b) => b.literalLength - a.literalLength);
  }

  /**
   * The row for a method and path (without query), with its path parameters as strings. A
   * parameter with a malformed %-escape is a ParameterError naming it (a server answers 400).
   */
  match(method: string, pathname: string): { route: R; pathParams: Record<string, string> } | undefined {
    for (const m of this.#matchers) {
      if (m.route.method !== method) continue;
      const hit = m.re.exec(pathname);
      if (!hit) continue;
      const pathParams: Record<string, string> = {};
      m.names.forEach((n, i) => {
        const value = decodeSegment(hit[i + 1]!);
        if (value === undefined) throw new ParameterError(n, "has a malformed %-escape", m.route.operationId);
        pathParams[n] = value;
      });
      return { route: m.route, pathParams };
    }
    return undefined;
  }

  /** True when some row (of any method) has this path: lets a server answer 405 rather than 404. */
  pathIsKnown(pathname: string): boolean {
    return this.#matchers.some((m) => m.re.test(pathname));
  }
}

/** The built-in routes: routes.ts as it is. */
export const BUILT_IN_ROUTES = new RouteTable();

/** The built-in route for a method and path (see RouteTable.match). */
export function matchRoute(method: string, pathname: string): { route: RouteDef; pathParams: Record<string, string> } | undefined {
  return BUILT_IN_ROUTES.match(method, pathname);
}

/** True when some built-in route (of any method) serves this path. */
export function pathIsKnown(pathname: string): boolean {
  return BUILT_IN_ROUTES.pathIsKnown(pathname);
}

/**
 * The path parameters of a path as sent for `route` (a base URL's path may come before the
 * template; a query after it is ignored), as strings; undefined when the path does not fit. Reads
 * `route.path`, so it works for a route of any table. A segment with a malformed %-escape comes
 * back as sent: this reads paths for messages, never throws.
 */
export function pathParamsOf(route: RouteDef, sentPath: string): Record<string, string> | undefined {
  const hit = new RegExp(`${patternOf(route.path)}$`).exec(sentPath.split("?")[0] ?? "");
  if (!hit) return undefined;
  return Object.fromEntries(pathParamNames(route).map((n, i) => [n, decodeSegment(hit[i + 1] ?? "") ?? hit[i + 1] ?? ""]));
}

/**
 * The route's access rule with the ids that are known filled in, e.g. "org admin of
 * organization 102"; an unknown id reads "the organization" / "the database" / "the directory".
 */
export function accessText(route: RouteDef, ids: { orgId?: number; databaseId?: number; directoryId?: number } = {}): string {
  const fill = (text: string, noun: string, id: number | undefined) =>
    text.replace(new RegExp(`${noun} \\{\\w+\\}`), id !== undefined ? `${noun} ${id}` : `the ${noun}`);
  let text = fill(route.access, "organization", ids.orgId);
  text = fill(text, "database", ids.databaseId);
  return fill(text, "directory", ids.directoryId);
}
