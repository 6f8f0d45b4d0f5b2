/**
 * The vendor's OpenAPI 3.x document as routes. The route table's paths were fixed from the
 * service's description; the vendor publishes the authoritative ones in its OpenAPI document. Each
 * row of the table is found in the document by its operationId (exactly, else ignoring case), and
 * the document's method and path replace the row's; everything else (parameters, bodies,
 * schemas, access) stays the row's.
 *
 * - A path is the first `servers` entry's path (its variables at their defaults; the operation's
 *   or path item's own `servers` first) followed by the path key, so `servers: [{url:
 *   https://host/v1}]` with `/databases` is `/v1/databases`, as the client sends it.
 * - Path parameters are mapped by name where the document uses the row's name (case ignored), and
 *   the others by their order in the path: `/orgs/{organization}/members/{id}` serves
 *   `{orgId}` and `{userId}`.
 * - A row the document lacks, or one it serves in a way the client cannot send (a path
 *   parameter the row cannot fill, a row's path parameter with no place in the path, a method the
 *   client does not send, two rows on one path), is a problem naming the row: never a silent
 *   fallback to the built-in path.
 *
 * JSON is read with JSON.parse, YAML with the `yaml` package (YAML 1.2, which also reads JSON).
 */
import * as fs from "node:fs";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import type { HttpMethod, RouteDef } from "./routeDef";
import { routeList } from "./routes";
import type { OperationId } from "./types";
import { BUILT_IN_ROUTES, pathParamNames, RouteTable, type RouteOverride } from "./routing";

/** A document that cannot be used, as one line: `<source>: <reason>[: <problem>; <problem>...]`. */
export class OpenApiError extends Error {
  override readonly name = "OpenApiError";
  constructor(
    /** The document's file (or the name it was given as). */
    readonly source: string,
    /** What is wrong, e.g. `is not valid YAML (...)` or `2 operations cannot be mapped`. */
    readonly reason: string,
    /** One line per operation that cannot be mapped, each starting with its operation id. */
    readonly problems: readonly string[] = [],
  ) {
    super(`${source}: ${reason}${problems.length ? `: ${problems.join("; ")}` : ""}`);
  }
}

/** A method and a path template. */
export interface Endpoint {
  readonly method: string;
  readonly path: string;
}

/** How a row fares in the document: served as ours, served elsewhere, absent, or served in a way the client cannot send. */
export type RouteStatus = "same" | "different" | "missing" | "unmappable";

/** One row of the route table against the document. */
export interface RouteComparison {
  /** The contract's number (E1..E30, up1..up5). */
  readonly id: string;
  readonly operationId: OperationId;
  readonly status: RouteStatus;
  /** The built-in method and path. */
  readonly ours: Endpoint;
  /** The document's operation (its own operationId spelling, its parameter names, the server's path included), when it has one. */
  readonly document?: Endpoint & { readonly operationId: string };
  /** `same` and `different`: the method and path the client sends, in the row's parameter names. */
  readonly mapped?: RouteOverride;
  /** The document's path parameter names that differ from the row's, with the row's name each fills: `{organization: "orgId"}`. */
  readonly renamed?: Readonly<Record<string, string>>;
  /** `missing` and `unmappable`: why, one line starting with the operation id. */
  readonly problem?: string;
}

/** What a document says about the route table. */
export interface OpenApiRoutes {
  /** The document's file (or the name it was given as). */
  readonly source: string;
  /** Its `openapi` version, e.g. `3.0.3`. */
  readonly version: string;
  /** Its `info.title`, when it has one. */
  readonly title?: string;
  /** One entry per row of the route table, in the contract's order. */
  readonly routes: readonly RouteComparison[];
  /** The document's operations no row uses (GetProjectUsers, ...): harmless, listed for the reader. */
  readonly onlyInDocument: readonly (Endpoint & { readonly operationId?: string })[];
  /** The `problem` of every missing or unmappable row: empty when the document can be used. */
  readonly problems: readonly string[];
}

/** The methods a path item may hold, and those the client sends. */
const ITEM_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const SENT: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE"] satisfies HttpMethod[];
/** A `{name}` of an OpenAPI path: any characters but braces and slashes (`{org-id}`, `{org.id}`). */
const DOC_PLACEHOLDER = /\{([^{}/]+)\}/g;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** One operation of the document. */
interface DocOperation {
  operationId?: string;
  method: string;
  /** Server path + path key. */
  path: string;
  /** Why its server's path cannot be read, when it cannot. */
  serverProblem?: string;
}

/** Parses a document's text: JSON for a `.json` name, YAML (which reads JSON too) otherwise. Throws OpenApiError. */
export function parseOpenApiText(text: string, source: string): unknown {
  if (/\.json$/i.test(source)) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new OpenApiError(source, `is not valid JSON (${(err as Error).message})`);
    }
  }
  try {
    return parseYaml(text);
  } catch (err) {
    // The yaml package's message is a line and column, then a snippet of the text: keep the line.
    throw new OpenApiError(source, `is not valid YAML (${(err as Error).message.split("\n")[0]})`);
  }
}

/** The path of the first server of `servers` (variables at their defaults), without a trailing slash; "" when none. */
function serverPath(servers: unknown): { path: string; problem?: string } {
  if (!Array.isArray(servers) || servers.length === 0) return { path: "" };
  const server = servers[0] as unknown;
  if (!isObject(server) || typeof server.url !== "string") return { path: "", problem: "its first server has no url" };
  const variables = isObject(server.variables) ? server.variables : {};
  let missing: string | undefined;
  const url = server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const v = variables[name];
    if (isObject(v) && typeof v.default === "string") return v.default;
    missing ??= name;
    return whole;
  });
  if (missing !== undefined) return { path: "", problem: `the server url ${server.url} has variable {${missing}} without a default` };
  try {
    return { path: new URL(url, "http://server.invalid/").pathname.replace(/\/+$/, "") };
  } catch {
    return { path: "", problem: `the server url ${server.url} is not a URL` };
  }
}

/** Every operation of a document that passed the version check. */
function operationsOf(doc: Json): DocOperation[] {
  const out: DocOperation[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [key, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const m of ITEM_METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const server = serverPath(op.servers ?? item.servers ?? doc.servers);
      out.push({
        operationId: typeof op.operationId === "string" ? op.operationId : undefined,
        method: m.toUpperCase(),
        path: server.path + (key.startsWith("/") ? key : `/${key}`),
        ...(server.problem ? { serverProblem: server.problem } : {}),
      });
    }
  }
  return out;
}

/**
 * Which row parameter each of the document's path parameters fills: by name first (case
 * ignored), the rest by order in the path. A problem when the counts differ or a name repeats.
 */
function mapParameters(ours: readonly string[], theirs: readonly string[]): { rename: Map<string, string> } | { problem: string } {
  const twice = theirs.find((t, i) => theirs.indexOf(t) !== i);
  if (twice !== undefined) return { problem: `path parameter {${twice}} appears twice` };
  const rename = new Map<string, string>();
  const left = [...ours];
  for (const t of theirs) {
    const o = left.find((x) => x === t) ?? left.find((x) => x.toLowerCase() === t.toLowerCase());
    if (o === undefined) continue;
    rename.set(t, o);
    left.splice(left.indexOf(o), 1);
  }
  const rest = theirs.filter((t) => !rename.has(t));
  const has = ours.length ? `it has ${ours.map((o) => `{${o}}`).join(", ")}` : "it has none";
  if (rest.length > left.length) return { problem: `path parameter {${rest[left.length]}} cannot be filled (${has})` };
  if (rest.length < left.length) return { problem: `the path has no place for {${left[rest.length]}} (${has})` };
  rest.forEach((t, i) => rename.set(t, left[i]!));
  return { rename };
}

/** A path template with every parameter the same, to tell whether two routes serve the same requests. */
const shapeOf = (e: Endpoint) => `${e.method} ${e.path.replace(/\{[^{}/]+\}/g, "{}").replace(/\/+$/, "")}`;

/**
 * Compares a parsed document with the route table, row by row. Throws OpenApiError only when the
 * document as a whole cannot be read as OpenAPI 3.x; a row it cannot serve is a `problem`.
 */
export function compareWithOpenApi(document: unknown, source: string): OpenApiRoutes {
  if (!isObject(document)) throw new OpenApiError(source, "is not an OpenAPI document (not a mapping of fields)");
  if (typeof document.swagger === "string") {
    throw new OpenApiError(
      source,
      `is a Swagger ${document.swagger} document; this reads OpenAPI 3.x (convert it first, e.g. with the swagger2openapi package)`,
    );
  }
  if (typeof document.openapi !== "string" || !/^3\.\d+/.test(document.openapi)) {
    throw new OpenApiError(
      source,
      `is not an OpenAPI 3.x document (its openapi field is ${JSON.stringify(document.openapi) ?? "missing"})`,
    );
  }
  if (document.paths !== undefined && !isObject(document.paths)) throw new OpenApiError(source, "has a paths field that is not a mapping");

  const operations = operationsOf(document);
  const byId = new Map<string, DocOperation[]>();
  const byLowerId = new Map<string, DocOperation[]>();
  for (const op of operations) {
    if (op.operationId === undefined) continue;
    byId.set(op.operationId, [...(byId.get(op.operationId) ?? []), op]);
    const lower = op.operationId.toLowerCase();
    byLowerId.set(lower, [...(byLowerId.get(lower) ?? []), op]);
  }

  const used = new Set<DocOperation>();
  const compared: RouteComparison[] = routeList.map((row) => compareRow(row, byId, byLowerId, used));

  // Two rows served on one method and path could not be told apart by the service.
  const mapped = compared.filter((c) => c.mapped);
  const clash = (c: RouteComparison) => mapped.filter((o) => o !== c && shapeOf(o.mapped!) === shapeOf(c.mapped!));
  const routes = compared.map((c): RouteComparison => {
    const others = c.mapped ? clash(c) : [];
    if (others.length === 0) return c;
    const { mapped: _dropped, ...rest } = c;
    const what = `${c.document!.method} ${c.document!.path}`;
    return {
      ...rest,
      status: "unmappable",
      problem: `${c.operationId}: ${what} also serves ${others.map((o) => o.operationId).join(", ")}: requests could not be told apart`,
    };
  });

  const info = isObject(document.info) ? document.info : {};
  return {
    source,
    version: document.openapi,
    ...(typeof info.title === "string" ? { title: info.title } : {}),
    routes,
    onlyInDocument: operations
      .filter((op) => !used.has(op))
      .map((op) => ({ method: op.method, path: op.path, ...(op.operationId !== undefined ? { operationId: op.operationId } : {}) })),
    problems: routes.flatMap((r) => (r.problem ? [r.problem] : [])),
  };
}

/** One row against the document's operations (marks the operation it takes as used). */
function compareRow(
  row: RouteDef,
  byId: Map<string, DocOperation[]>,
  byLowerId: Map<string, DocOperation[]>,
  used: Set<DocOperation>,
): RouteComparison {
  const base = { id: row.id, operationId: row.operationId as OperationId, ours: { method: row.method, path: row.path } };
  const found = byId.get(row.operationId) ?? byLowerId.get(row.operationId.toLowerCase()) ?? [];
  if (found.length === 0) {
    return { ...base, status: "missing", problem: `${row.operationId}: not in the document (no operation has this operationId)` };
  }
  found.forEach((op) => used.add(op));
  const op = found[0]!;
  const document = { operationId: op.operationId!, method: op.method, path: op.path };
  const unmappable = (why: string): RouteComparison => ({ ...base, document, status: "unmappable", problem: `${row.operationId}: ${why}` });
  if (found.length > 1)
    return unmappable(
      `${found.length} operations of the document have this operationId (${found.map((o) => `${o.method} ${o.path}`).join(", ")})`,
    );
  if (op.serverProblem) return unmappable(op.serverProblem);
  if (!SENT.includes(op.method)) return unmappable(`the document serves it with ${op.method}, which the client does not send`);

  const theirs = [...op.path.matchAll(DOC_PLACEHOLDER)].map((m) => m[1]!);
  const mapping = mapParameters(pathParamNames(row), theirs);
  if ("problem" in mapping) return unmappable(`${op.method} ${op.path}: ${mapping.problem}`);
  const mapped: RouteOverride = {
    method: op.method as HttpMethod,
    path: op.path.replace(DOC_PLACEHOLDER, (_, t: string) => `{${mapping.rename.get(t)}}`),
  };
  const renamed = Object.fromEntries([...mapping.rename].filter(([t, o]) => t !== o));
  const same = mapped.method === row.method && mapped.path === row.path;
  return { ...base, document, status: same ? "same" : "different", mapped, ...(Object.keys(renamed).length ? { renamed } : {}) };
}

/** Reads and compares a document file (see compareWithOpenApi). Throws OpenApiError when it cannot be read as OpenAPI 3.x. */
export function readOpenApi(file: string): OpenApiRoutes {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new OpenApiError(
      file,
      `cannot be read (${code === "ENOENT" ? "no such file" : typeof code === "string" ? code : (err as Error).message})`,
    );
  }
  return compareWithOpenApi(parseOpenApiText(text, file), file);
}

/** The route table a compared document gives; throws OpenApiError naming every row it cannot serve. */
export function routeTableOf(compared: OpenApiRoutes): RouteTable {
  if (compared.problems.length > 0) {
    const n = compared.problems.length;
    throw new OpenApiError(compared.source, `${n} operation${n === 1 ? "" : "s"} of the route table cannot be mapped`, compared.problems);
  }
  const overrides = Object.fromEntries(compared.routes.filter((r) => r.status === "different").map((r) => [r.operationId, r.mapped!]));
  return new RouteTable(overrides, compared.source);
}

/** The route table of a document file: readOpenApi then routeTableOf. Throws OpenApiError. */
export function routeTableFromOpenApi(file: string): RouteTable {
  return routeTableOf(readOpenApi(file));
}

/**
 * An OpenAPI 3.0 document of a route table (the built-in one by default): every operation with
 * its operationId, method, path, summary, path and query parameters and the kind of body it
 * takes. Reading it back gives the same routes: it is where a document for a live service that
 * differs can start, and what `pulumi-reviewadmin routes --openapi-out` writes.
 */
export function openApiDocumentOf(table: RouteTable = BUILT_IN_ROUTES, title = "Review platform administration API"): Json {
  const paths: Record<string, Json> = {};
  for (const r of table.list) {
    const inPath = pathParamNames(r);
    const shape = (r.params as z.ZodObject).shape as Record<string, z.ZodType>;
    const parameters = Object.keys(shape).map((name) => ({
      name,
      in: inPath.includes(name) ? "path" : "query",
      required: inPath.includes(name) || !shape[name]!.safeParse(undefined).success,
      schema: { type: "integer" },
    }));
    const body =
      r.body === undefined
        ? {}
        : r.body === "multipart"
          ? {
              requestBody: {
                required: true,
                content: {
                  "multipart/form-data": {
                    schema: { type: "object", properties: { file: { type: "string", format: "binary" } }, required: ["file"] },
                  },
                },
              },
            }
          : { requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } } };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      ...(parameters.length ? { parameters } : {}),
      ...body,
      responses: { "2XX": { description: r.envelope === "none" ? "done" : "the data, in the envelope of its kind" } },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title, version: "1" },
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
