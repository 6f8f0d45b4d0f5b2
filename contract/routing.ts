/**
 * Routing over the route table: builds a request path from an operation's parameters (the
 * client) and finds the operation of an incoming request (the emulator).
 */
import { ParameterError } from "./params";
import { routeList, type RouteDef } from "./routes";

/** Names of the `{name}` segments of a path template. */
export function pathParamNames(route: RouteDef): string[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** Fills a path template and appends the remaining defined params as the query string. */
export function buildPath(route: RouteDef, params: Record<string, unknown>): string {
  const used = new Set<string>();
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
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

/** Compiled matchers, most specific first so /events/recent wins over /events/after/{id}. */
const matchers = routeList
  .map((r) => ({
    route: r,
    names: pathParamNames(r),
    re: new RegExp("^" + r.path.replace(/\{\w+\}/g, "([^/]+)") + "/?$"),
    literalLength: r.path.replace(/\{\w+\}/g, "").length,
  }))
  .sort((a, b) => b.literalLength - a.literalLength);

/** A path segment %-decoded, or undefined when its %-escapes are malformed (`%ZZ`, a lone `%`, bad UTF-8). */
function decodeSegment(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Finds the route for a method and path (without query); path parameters come back as strings.
 * A parameter with a malformed %-escape is a ParameterError naming it (a server answers 400).
 */
export function matchRoute(method: string, pathname: string): { route: RouteDef; pathParams: Record<string, string> } | undefined {
  for (const m of matchers) {
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

/**
 * The path parameters of a path as sent for `route` (a base URL's path may come before the
 * template; a query after it is ignored), as strings; undefined when the path does not fit. A
 * segment with a malformed %-escape comes back as sent: this reads paths for messages, never throws.
 */
export function pathParamsOf(route: RouteDef, sentPath: string): Record<string, string> | undefined {
  const m = matchers.find((x) => x.route === route);
  const hit = m ? new RegExp(m.re.source.replace(/^\^/, "")).exec(sentPath.split("?")[0] ?? "") : null;
  if (!m || !hit) return undefined;
  return Object.fromEntries(m.names.map((n, i) => [n, decodeSegment(hit[i + 1] ?? "") ?? hit[i + 1] ?? ""]));
}

/** True when some route (of any method) serves this path: lets a server answer 405 rather than 404. */
export function pathIsKnown(pathname: string): boolean {
  return matchers.some((m) => m.re.test(pathname));
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
