/**
 * The route table against the contract's (test/contract/routeTable.md, a copy of the team's
 * ../shared/contract.md kept in the repository so a plain clone pins it): every row is one route
 * with the same number, operation id, method and path, and the table has no route the contract
 * lacks. A change to either side without the other fails here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { accessText, buildPath, matchRoute, ParameterError, pathParamsOf, routeList, routes } from "../../contract";
import { id, listLimit } from "../../contract/params";

const contractFile = path.join(__dirname, "routeTable.md");

/** The contract's route table: number, operation id, method and path template. */
function contractRows(): { id: string; operationId: string; method: string; path: string }[] {
  const rows: { id: string; operationId: string; method: string; path: string }[] = [];
  for (const line of fs.readFileSync(contractFile, "utf8").split("\n")) {
    // | E1 | GetDatabases | GET /v1/databases |   (the path may carry a query or a note after it)
    const m = /^\|\s*(E\d+|up\d+)\s*\|\s*(\w+)\s*\|\s*(GET|POST|PUT|PATCH|DELETE)\s+(\/[^\s?,]+)(\?\S*)?,?(\s.*)?\|\s*$/.exec(line);
    if (m) rows.push({ id: m[1]!, operationId: m[2]!, method: m[3]!, path: m[4]! });
  }
  return rows;
}

describe("route table", () => {
  it("matches the contract's table row for row", () => {
    const rows = contractRows();
    expect(rows.length).toBe(35);
    const ours = routeList.map((r) => ({ id: r.id, operationId: r.operationId, method: r.method, path: r.path }));
    expect(ours).toEqual(rows);
  });

  it("keys every route by its operation id", () => {
    for (const [key, route] of Object.entries(routes)) expect(route.operationId).toBe(key);
  });

  it("builds a path and finds the route again from it", () => {
    for (const route of routeList) {
      const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m, i) => [m[1], 100 + i]));
      const built = buildPath(route, params);
      expect(matchRoute(route.method, built)?.route).toBe(route);
      expect(pathParamsOf(route, `/base${built}`)).toEqual(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
    }
  });

  it("words every route's access rule with the ids it knows", () => {
    expect(accessText(routes.GetOrganizationUsers, { orgId: 102 })).toBe("org admin of organization 102");
    expect(accessText(routes.GetOrganizationUsers)).toBe("org admin of the organization");
    expect(accessText(routes.PutDatabaseUser, { databaseId: 2002 })).toMatch(/^DB_ADMIN on database 2002, or org admin/);
    for (const route of routeList) expect(accessText(route, { orgId: 1, databaseId: 2, directoryId: 3 })).not.toMatch(/[{}]/);
  });
});

describe("parameter rules", () => {
  it("reads an id from a number or from plain decimal digits, and nothing else", () => {
    expect(id.parse(102)).toBe(102);
    expect(id.parse("102")).toBe(102);
    for (const text of ["0x66", "1e3", " 12", "12 ", "12.0", "+12", "-12", "", "0"]) {
      expect(id.safeParse(text).success, JSON.stringify(text)).toBe(false);
    }
    for (const n of [0, -1, 1.5, Number.NaN]) expect(id.safeParse(n).success, String(n)).toBe(false);
    expect(id.safeParse("0x66").error?.issues[0]?.message).toBe("must be a positive integer id");
    expect(listLimit.parse("25")).toBe(25);
    expect(listLimit.safeParse("0x10").error?.issues[0]?.message).toBe("must be an integer from 1 to 200");
  });

  it("refuses a path parameter with a malformed %-escape by name; pathParamsOf keeps it as sent", () => {
    expect(() => matchRoute("GET", "/v1/organizations/%ZZ/users")).toThrow(
      new ParameterError("orgId", "has a malformed %-escape", "GetOrganizationUsers"),
    );
    expect(matchRoute("GET", "/v1/organizations/%31%30%32/users")?.pathParams).toEqual({ orgId: "102" });
    expect(pathParamsOf(routes.GetOrganizationUsers, "/v1/organizations/%ZZ/users")).toEqual({ orgId: "%ZZ" });
  });
});
