/**
 * `pulumi-reviewadmin routes --openapi FILE` and `--openapi-out FILE`: the built-in routes against
 * a document, per operation (same, different with the document's method and path, missing,
 * cannot be mapped, only in the document), the verdict, JSON, and the exit codes (0 same, 1 a
 * difference, 2 a document that cannot be read); the export read back is the same as ours.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { routeList } from "../../contract";
import { runCli } from "./runCli";

const RENAMED = path.resolve(__dirname, "../fixtures/openapi/renamed.yaml");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "routes-cli-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The built-in routes exported by the command, as a YAML file: the document the --openapi tests read. */
const ours = path.join(dir, "ours.yaml");
// Written before any test, so that no test depends on another having run first.
beforeAll(async () => {
  expect((await runCli(["routes", "--openapi-out", ours])).code).toBe(0);
});

describe("routes --openapi-out", () => {
  it("writes the built-in routes as an OpenAPI document, YAML or JSON by the file's name", async () => {
    expect(await runCli(["routes", "--openapi-out", ours])).toEqual({
      code: 0,
      out: `wrote the 35 built-in routes to ${ours} (OpenAPI 3.0.3)\n`,
      err: "",
    });
    const doc = parse(fs.readFileSync(ours, "utf8"));
    expect(doc.openapi).toBe("3.0.3");
    expect(doc.paths["/v1/organizations/{orgId}/events"].get).toMatchObject({
      operationId: "GetOrganizationEvents",
      parameters: [
        { name: "orgId", in: "path", required: true },
        { name: "begin", in: "query", required: true },
        { name: "end", in: "query", required: true },
        { name: "limit", in: "query", required: false },
      ],
    });
    expect(Object.keys(doc.paths["/v1/directories/{directoryId}/custodians"].post.requestBody.content)).toEqual(["multipart/form-data"]);
    const json = path.join(dir, "ours.json");
    expect((await runCli(["routes", "--openapi-out", json])).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(json, "utf8"))).toEqual(doc);
  });

  it("refuses --json and --openapi with it", async () => {
    expect(await runCli(["routes", "--openapi-out", ours, "--json"])).toMatchObject({ code: 2, err: /--openapi-out takes no --json/ });
    expect(await runCli(["routes", "--openapi-out", ours, "--openapi", RENAMED])).toMatchObject({ code: 2, err: /do not go together/ });
  });
});

describe("routes --openapi", () => {
  it("exits 0 on the built-in routes' own document and says there is nothing to configure", async () => {
    const r = await runCli(["routes", "--openapi", ours]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^E1 +GetDatabases +same +GET \/v1\/databases$/m);
    expect(r.out).toContain(
      "35 operations: 35 same, 0 different, 0 missing, 0 cannot be mapped; 0 only in the document (not used by this package).",
    );
    expect(r.out.trimEnd().split("\n").at(-1)).toBe("The document agrees with the built-in routes: nothing to configure.");
  });

  it("shows each different operation's document method and path, how its parameters map, and exits 1", async () => {
    const r = await runCli(["routes", "--openapi", RENAMED]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("");
    const lines = r.out.trimEnd().split("\n");
    const at = (op: string) =>
      lines
        .slice(lines.findIndex((l) => l.includes(` ${op} `)))
        .slice(0, 2)
        .map((l) => l.trim().replace(/\s+/g, " "));
    expect(at("GetCurrentUser")).toEqual([
      "E2 GetCurrentUser different GET /v1/users/me",
      "document: GET /api/v2/account (operationId getCurrentUser)",
    ]);
    expect(at("DeleteOrganizationInvitation")).toEqual([
      "E13 DeleteOrganizationInvitation different DELETE /v1/organizations/{orgId}/invitations",
      "document: POST /api/v2/orgs/{organizationId}/invites/revoke ({organizationId} is orgId)",
    ]);
    expect(at("PostSourceFilePart")[1]).toBe(
      "document: POST /api/v2/dbs/{dbId}/files/{fileId}/parts/{n} ({dbId} is databaseId, {fileId} is sourceFileId, {n} is partNumber)",
    );
    expect(r.out).toMatch(/^- +GetProjectUsers +only in the document +GET \/api\/v2\/projects\/\{projectId\}\/users$/m);
    expect(r.out).toContain(
      "35 operations: 0 same, 35 different, 0 missing, 0 cannot be mapped; 1 only in the document (not used by this package).",
    );
    expect(lines.at(-1)).toBe(
      `Resources would fail on the built-in routes: use the document's. In a stack: pulumi config set reviewadmin:openapi ${RENAMED} ` +
        `(a path relative to the project folder); for scripts and the doctor: REVIEWADMIN_OPENAPI=${RENAMED}. Then check the key: npx --no-install pulumi-reviewadmin doctor.`,
    );
  });

  it("names what is missing or cannot be mapped, says the provider refuses the document, and exits 1", async () => {
    const doc = parse(fs.readFileSync(ours, "utf8"));
    delete doc.paths["/v1/databases/{databaseId}/users"];
    doc.paths["/v1/tenants/{tenant}/organizations/{orgId}/users/{userId}"] = {
      patch: doc.paths["/v1/organizations/{orgId}/users/{userId}"].patch,
    };
    delete doc.paths["/v1/organizations/{orgId}/users/{userId}"].patch;
    const broken = path.join(dir, "broken.yaml");
    fs.writeFileSync(broken, stringify(doc));
    const r = await runCli(["routes", "--openapi", broken]);
    expect(r.code).toBe(1);
    const squeezed = r.out
      .trimEnd()
      .split("\n")
      .map((l) => l.trim().replace(/\s+/g, " "));
    expect(squeezed).toContain("E22 PatchOrganizationUser cannot be mapped PATCH /v1/organizations/{orgId}/users/{userId}");
    expect(squeezed).toContain(
      "PATCH /v1/tenants/{tenant}/organizations/{orgId}/users/{userId}: path parameter {tenant} cannot be filled (it has {orgId}, {userId})",
    );
    expect(squeezed).toContain("E23 GetDatabaseUsers missing GET /v1/databases/{databaseId}/users");
    expect(squeezed).toContain("not in the document (no operation has this operationId)");
    expect(r.out).toContain("35 operations: 33 same, 0 different, 1 missing, 1 cannot be mapped; 0 only in the document");
    expect(squeezed.at(-1)).toMatch(
      /^The provider refuses this document: PatchOrganizationUser, GetDatabaseUsers cannot be served from it/,
    );

    const j = await runCli(["routes", "--openapi", broken, "--json"]);
    expect(j.code).toBe(1);
    const report = JSON.parse(j.out);
    expect(report.summary).toEqual({ same: 33, different: 0, missing: 1, unmappable: 1, onlyInDocument: 0 });
    expect(report.exitCode).toBe(1);
    expect(report.problems).toHaveLength(2);
    expect(report.routes).toHaveLength(routeList.length);
    expect(report.routes.find((x: { operationId: string }) => x.operationId === "GetDatabaseUsers")).toMatchObject({
      id: "E23",
      status: "missing",
    });
  });

  it("exits 2 with one line when the document cannot be read", async () => {
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, "{ not json");
    const r = await runCli(["routes", "--openapi", bad]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      new RegExp(`^pulumi-reviewadmin routes: ${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: is not valid JSON \\(.*\\)\\n$`),
    );
    expect((await runCli(["routes", "--openapi", path.join(dir, "none.yaml")])).err).toBe(
      `pulumi-reviewadmin routes: ${path.join(dir, "none.yaml")}: cannot be read (no such file)\n`,
    );
  });

  it("--help says how to read the comparison and the exit codes", async () => {
    const r = await runCli(["routes", "--help"]);
    expect(r.out).toContain("--openapi FILE");
    expect(r.out).toContain("pulumi config set reviewadmin:openapi FILE");
    expect(r.out).toContain("Exit code with --openapi: 0 when every operation is the same, 1 when one differs");
  });
});
