/**
 * Routes from the vendor's OpenAPI document (contract/openapi.ts) and route tables
 * (contract/routing.ts): JSON and YAML, matching by operationId, the servers' path, path
 * parameters mapped by name and by position, every problem a document can have (each naming
 * the operation), and a table built from a document routing as the built-in one does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { BUILT_IN_ROUTES, buildPath, matchRoute, pathParamsOf, RouteTable, routeList, routes, type RouteDef } from "../../contract";
import {
  compareWithOpenApi,
  OpenApiError,
  openApiDocumentOf,
  parseOpenApiText,
  readOpenApi,
  routeTableFromOpenApi,
  routeTableOf,
} from "../../contract/openapi";

const RENAMED = path.resolve(__dirname, "../fixtures/openapi/renamed.yaml");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-test-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a fresh file named `name` and returns its path. */
function file(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

/** The built-in routes as a document: every operation, our methods and paths. */
const builtInDocument = () => openApiDocumentOf() as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

/** A document of the built-in routes with `edit` applied to it (a deep copy). */
function edited(edit: (doc: ReturnType<typeof builtInDocument>) => void) {
  const doc = structuredClone(builtInDocument());
  edit(doc);
  return doc;
}

/** Moves one operation to another method and path in a document. */
function move(doc: ReturnType<typeof builtInDocument>, from: string, method: string, to: string, newMethod = method): void {
  const op = doc.paths[from]![method]!;
  delete doc.paths[from]![method];
  (doc.paths[to] ??= {})[newMethod] = op;
}

describe("reading a document", () => {
  it("reads YAML and JSON to the same comparison", () => {
    const yaml = readOpenApi(RENAMED);
    const json = readOpenApi(file("renamed.json", JSON.stringify(parseOpenApiText(fs.readFileSync(RENAMED, "utf8"), RENAMED))));
    expect(json.routes).toEqual(yaml.routes);
    expect(yaml.version).toBe("3.0.3");
    expect(yaml.title).toBe("Review platform administration API (renamed routes, test fixture)");
    // YAML 1.2 reads JSON too, whatever the file is called.
    expect(readOpenApi(file("renamed-json.yaml", fs.readFileSync(json.source, "utf8"))).routes).toEqual(yaml.routes);
  });

  it("refuses what is not an OpenAPI 3.x document, in one line naming the file", () => {
    const refused = (name: string, text: string) => {
      try {
        readOpenApi(file(name, text));
      } catch (err) {
        expect(err).toBeInstanceOf(OpenApiError);
        expect((err as Error).message).not.toContain("\n");
        return (err as OpenApiError).reason;
      }
      throw new Error("not refused");
    };
    expect(refused("bad.json", "{ openapi: 3 }")).toMatch(/^is not valid JSON \(/);
    expect(refused("bad.yaml", "openapi: 3.0.0\npaths: {\n  /a: [")).toMatch(/^is not valid YAML \(.*line \d+/);
    expect(refused("twice.yaml", "openapi: 3.0.0\nopenapi: 3.1.0\n")).toMatch(/^is not valid YAML \(/);
    expect(refused("swagger.yaml", 'swagger: "2.0"\npaths: {}\n')).toBe(
      "is a Swagger 2.0 document; this reads OpenAPI 3.x (convert it first, e.g. with the swagger2openapi package)",
    );
    expect(refused("v2.yaml", "openapi: 2.0.0\n")).toBe('is not an OpenAPI 3.x document (its openapi field is "2.0.0")');
    expect(refused("none.yaml", "info: {}\n")).toBe("is not an OpenAPI 3.x document (its openapi field is missing)");
    expect(refused("empty.yaml", "")).toBe("is not an OpenAPI document (not a mapping of fields)");
    expect(refused("list.yaml", "- openapi\n")).toBe("is not an OpenAPI document (not a mapping of fields)");
    expect(refused("paths.yaml", "openapi: 3.1.0\npaths: [1]\n")).toBe("has a paths field that is not a mapping");
    expect(() => readOpenApi(path.join(dir, "absent.yaml"))).toThrow(`${path.join(dir, "absent.yaml")}: cannot be read (no such file)`);
  });
});

describe("comparing with the built-in routes", () => {
  it("finds the built-in routes' own document the same, row for row", () => {
    const compared = compareWithOpenApi(builtInDocument(), "ours.yaml");
    expect(compared.routes.map((r) => r.status)).toEqual(routeList.map(() => "same"));
    expect(compared.problems).toEqual([]);
    expect(compared.onlyInDocument).toEqual([]);
    // Nothing differs: the table is the built-in one in all but its source.
    const table = routeTableOf(compared);
    expect(table.list.map((r) => [r.method, r.path])).toEqual(routeList.map((r) => [r.method, r.path]));
    expect(table.source).toBe("ours.yaml");
  });

  it("takes the path of the first server, its variables at their defaults; an operation's own servers first", () => {
    const doc = edited((d) => {
      for (const [p, item] of Object.entries(d.paths)) {
        delete d.paths[p];
        d.paths[p.replace(/^\/v1/, "")] = item;
      }
      Object.assign(d, {
        servers: [
          { url: "https://{region}.example.com/{version}", variables: { region: { default: "eu" }, version: { default: "v1" } } },
          { url: "/other" },
        ],
      });
      d.paths["/users/me"]!.get!.servers = [{ url: "https://api.example.com/v1/" }];
    });
    expect(compareWithOpenApi(doc, "servers.yaml").routes.map((r) => r.status)).toEqual(routeList.map(() => "same"));
    const relative = compareWithOpenApi({ ...doc, servers: [{ url: "/v1" }] }, "relative.yaml");
    expect(relative.problems).toEqual([]);
    expect(relative.routes.every((r) => r.status === "same")).toBe(true);
  });

  it("matches operationIds exactly, else ignoring case, and keeps the document's spelling", () => {
    const compared = readOpenApi(RENAMED);
    const me = compared.routes.find((r) => r.operationId === "GetCurrentUser")!;
    expect(me).toMatchObject({ status: "different", document: { operationId: "getCurrentUser", method: "GET", path: "/api/v2/account" } });
  });

  it("maps path parameters by name where the names agree (case ignored), the others by their order in the path", () => {
    const byOp = Object.fromEntries(readOpenApi(RENAMED).routes.map((r) => [r.operationId, r]));
    // By position: every name differs.
    expect(byOp.PostSourceFilePart).toMatchObject({
      mapped: { method: "POST", path: "/api/v2/dbs/{databaseId}/files/{sourceFileId}/parts/{partNumber}" },
      renamed: { dbId: "databaseId", fileId: "sourceFileId", n: "partNumber" },
    });
    // By name, in the other order than ours.
    expect(byOp.GetDatabaseUser!.mapped).toEqual({ method: "GET", path: "/api/v2/users/{userId}/grants/{databaseId}" });
    expect(byOp.GetDatabaseUser!.renamed).toBeUndefined();
    // One by name, the other by position.
    expect(byOp.PutDatabaseUser).toMatchObject({
      mapped: { path: "/api/v2/dbs/{databaseId}/grants/{userId}" },
      renamed: { dbId: "databaseId" },
    });
    expect(byOp.GetOrganizationEventsAfter).toMatchObject({
      mapped: { path: "/api/v2/orgs/{orgId}/activity/since/{eventId}" },
      renamed: { organizationId: "orgId" },
    });
    // Case ignored; a name that is not a word.
    const doc = edited((d) => {
      move(d, "/v1/organizations/{orgId}/users/{userId}", "get", "/v1/organizations/{ORGID}/users/{user-id}");
    });
    const member = compareWithOpenApi(doc, "case.yaml").routes.find((r) => r.operationId === "GetOrganizationUser")!;
    expect(member).toMatchObject({
      status: "same",
      mapped: { path: "/v1/organizations/{orgId}/users/{userId}" },
      renamed: { ORGID: "orgId", "user-id": "userId" },
    });
  });

  it("takes the document's method and path, and lists what only the document has", () => {
    const compared = readOpenApi(RENAMED);
    expect(compared.problems).toEqual([]);
    expect(compared.routes.every((r) => r.status === "different")).toBe(true);
    expect(compared.routes.find((r) => r.operationId === "DeleteOrganizationInvitation")).toMatchObject({
      ours: { method: "DELETE", path: "/v1/organizations/{orgId}/invitations" },
      document: { operationId: "DeleteOrganizationInvitation", method: "POST", path: "/api/v2/orgs/{organizationId}/invites/revoke" },
      mapped: { method: "POST", path: "/api/v2/orgs/{orgId}/invites/revoke" },
    });
    expect(compared.onlyInDocument).toEqual([
      { operationId: "GetProjectUsers", method: "GET", path: "/api/v2/projects/{projectId}/users" },
    ]);
  });
});

describe("what a document cannot serve (each a problem naming the operation)", () => {
  const problemsOf = (edit: (d: ReturnType<typeof builtInDocument>) => void) => compareWithOpenApi(edited(edit), "doc.yaml").problems;

  it("an operation the document lacks", () => {
    const compared = compareWithOpenApi(
      edited((d) => delete d.paths["/v1/databases/{databaseId}/users"]),
      "doc.yaml",
    );
    expect(compared.problems).toEqual(["GetDatabaseUsers: not in the document (no operation has this operationId)"]);
    expect(compared.routes.find((r) => r.operationId === "GetDatabaseUsers")).toMatchObject({ status: "missing", ours: { method: "GET" } });
    expect(compared.routes.find((r) => r.operationId === "GetDatabaseUsers")!.document).toBeUndefined();
  });

  it("a path parameter the operation cannot fill, and one of ours with no place in the path", () => {
    expect(
      problemsOf((d) =>
        move(d, "/v1/organizations/{orgId}/users/{userId}", "patch", "/v1/tenants/{tenant}/organizations/{orgId}/users/{userId}"),
      ),
    ).toEqual([
      "PatchOrganizationUser: PATCH /v1/tenants/{tenant}/organizations/{orgId}/users/{userId}: path parameter {tenant} cannot be filled (it has {orgId}, {userId})",
    ]);
    expect(problemsOf((d) => move(d, "/v1/organizations/{orgId}/invitations", "delete", "/v1/invitations"))).toEqual([
      "DeleteOrganizationInvitation: DELETE /v1/invitations: the path has no place for {orgId} (it has {orgId})",
    ]);
    expect(problemsOf((d) => move(d, "/v1/users/me", "get", "/v1/users/{id}"))).toEqual([
      "GetCurrentUser: GET /v1/users/{id}: path parameter {id} cannot be filled (it has none)",
    ]);
    expect(problemsOf((d) => move(d, "/v1/databases/{databaseId}/size", "get", "/v1/databases/{a}/size/{a}"))).toEqual([
      "GetDatabaseSize: GET /v1/databases/{a}/size/{a}: path parameter {a} appears twice",
    ]);
  });

  it("a method the client does not send, an operationId given twice, a server variable without a default", () => {
    expect(problemsOf((d) => move(d, "/v1/databases/{databaseId}/size", "get", "/v1/databases/{databaseId}/size", "head"))).toEqual([
      "GetDatabaseSize: the document serves it with HEAD, which the client does not send",
    ]);
    expect(
      problemsOf((d) => {
        d.paths["/v1/databases/{databaseId}/size2"] = { get: { operationId: "GetDatabaseSize" } };
      }),
    ).toEqual([
      "GetDatabaseSize: 2 operations of the document have this operationId (GET /v1/databases/{databaseId}/size, GET /v1/databases/{databaseId}/size2)",
    ]);
    expect(
      problemsOf((d) => {
        (d.paths["/v1/users/me"] as Record<string, unknown>).servers = [{ url: "https://{host}/v1" }];
      }),
    ).toEqual(["GetCurrentUser: the server url https://{host}/v1 has variable {host} without a default"]);
  });

  it("two operations on one method and path", () => {
    const problems = problemsOf((d) => move(d, "/v1/organizations/{orgId}/userIdentifiers", "get", "/v1/organizations/{id}/users"));
    expect(problems).toEqual([
      "GetOrganizationUserIdentifiers: GET /v1/organizations/{id}/users also serves GetOrganizationUsers: requests could not be told apart",
      "GetOrganizationUsers: GET /v1/organizations/{orgId}/users also serves GetOrganizationUserIdentifiers: requests could not be told apart",
    ]);
  });

  it("makes routeTableOf throw one OpenApiError naming every such operation", () => {
    const doc = edited((d) => {
      delete d.paths["/v1/databases/{databaseId}/users"];
      move(d, "/v1/organizations/{orgId}/users/{userId}", "patch", "/v1/t/{tenant}/o/{orgId}/u/{userId}");
    });
    const f = file("broken.yaml", stringify(doc));
    expect(() => routeTableFromOpenApi(f)).toThrow(
      new OpenApiError(f, "2 operations of the route table cannot be mapped", [
        "PatchOrganizationUser: PATCH /v1/t/{tenant}/o/{orgId}/u/{userId}: path parameter {tenant} cannot be filled (it has {orgId}, {userId})",
        "GetDatabaseUsers: not in the document (no operation has this operationId)",
      ]),
    );
  });
});

describe("a route table from a document", () => {
  const table = routeTableFromOpenApi(RENAMED);

  it("keeps every fact of the rows but method and path", () => {
    expect(table.source).toBe(RENAMED);
    expect(table.prefix).toBe("/api/v2");
    expect(BUILT_IN_ROUTES.prefix).toBe("/v1");
    for (const row of routeList) {
      const route = table.routes[row.operationId as keyof typeof routes];
      const { method: _m, path: _p, ...facts } = route;
      const { method: _rm, path: _rp, ...rowFacts } = row;
      expect(facts).toEqual(rowFacts);
    }
  });

  it("builds each path and finds the route again from it; the built-in paths are not served", () => {
    for (const route of table.list) {
      const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m, i) => [m[1], 100 + i]));
      const built = buildPath(route, params);
      expect(built.startsWith("/api/v2/")).toBe(true);
      const found = table.match(route.method, built);
      expect(found?.route).toBe(route);
      expect(found?.pathParams).toEqual(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
      expect(pathParamsOf(route, `/base${built}`)).toEqual(found?.pathParams);
      const row = routes[route.operationId as keyof typeof routes] as RouteDef;
      expect(table.match(row.method, buildPath(row, params))).toBeUndefined();
      expect(matchRoute(row.method, buildPath(row, params))?.route).toBe(row);
    }
    expect(table.pathIsKnown("/api/v2/orgs/102/invites/revoke")).toBe(true);
    expect(table.match("DELETE", "/api/v2/orgs/102/invites/revoke")).toBeUndefined();
    expect(table.route("GetCurrentUser")?.path).toBe("/api/v2/account");
    expect(table.route("toString")).toBeUndefined();
  });

  it("escapes the literal text of a path (a document's path may hold regular-expression characters)", () => {
    const t = new RouteTable({ GetDatabases: { method: "GET", path: "/x/data.bases(all)" } });
    expect(t.match("GET", "/x/data.bases(all)")?.route.operationId).toBe("GetDatabases");
    expect(t.match("GET", "/x/dataXbases(all)")).toBeUndefined();
  });

  it("refuses an override that does not name the row's path parameters", () => {
    expect(() => new RouteTable({ GetDatabaseUser: { method: "GET", path: "/d/{databaseId}/u/{id}" } })).toThrow(
      "route override of GetDatabaseUser: path /d/{databaseId}/u/{id} must name {databaseId, userId}, names {databaseId, id}",
    );
  });
});
