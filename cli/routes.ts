/**
 * `pulumi-reviewadmin routes`: the API operations this version uses, as a table; with `--openapi
 * FILE`, each of them against the vendor's OpenAPI document (the first-day check); with
 * `--openapi-out FILE`, the built-in routes written as an OpenAPI document.
 */
import * as fs from "node:fs";
import { stringify } from "yaml";
import { routeList } from "../contract";
import { OpenApiError, openApiDocumentOf, readOpenApi, type OpenApiRoutes, type RouteComparison } from "../contract/openapi";
import { plural, UsageError, type Command, type Io } from "./command";

/** Exit codes of `--openapi`, as diff(1) has them: the same, different, trouble. */
const SAME = 0;
const DIFFERENT = 1;
const TROUBLE = 2;

/** What each status is called in the table and the summary. */
const LABEL: Record<RouteComparison["status"], string> = {
  same: "same",
  different: "different",
  missing: "missing",
  unmappable: "cannot be mapped",
};

/** The routes command (see its description). */
export const routes: Command = {
  name: "routes",
  summary: "list the API operations this version uses, or compare them with the vendor's OpenAPI document",
  description: `
Lists every operation of the administration API this version of the package uses: its number in
the contract, its operation id, method and path, and who may call it.

With --openapi FILE (the vendor's OpenAPI 3.x document, JSON or YAML) it compares each operation
with the document's operation of the same operationId, and says per operation: same, different
(the document's method and path below ours, with how its path parameters map to ours), missing
from the document, or cannot be mapped (a path parameter the operation cannot fill, say); then the
document's operations this package does not use, and what to do:

  - every operation the same: nothing to configure;
  - some different, none missing: set the document as the routes, with
    \`pulumi config set reviewadmin:openapi FILE\` (or REVIEWADMIN_OPENAPI=FILE), and the provider
    sends each operation to the document's method and path;
  - some missing or not mappable: the provider refuses the document, naming them; the document is
    yours to edit (add the operation, or correct its operationId).

Exit code with --openapi: 0 when every operation is the same, 1 when one differs, is missing or
cannot be mapped (a resource would fail without the setting, or even with it), 2 when the
document cannot be read. docs/openapi.md in the package has the rest.

With --openapi-out FILE it writes the built-in routes as an OpenAPI document (YAML for a .yaml or
.yml name, JSON otherwise): a start for a document of a live service that differs.`,
  options: {
    json: { type: "boolean", help: "print JSON instead of a table" },
    openapi: { type: "string", value: "FILE", help: "compare each operation with the vendor's OpenAPI 3.x document (JSON or YAML)" },
    "openapi-out": { type: "string", value: "FILE", help: "write the built-in routes as an OpenAPI document to FILE" },
  },
  examples: [
    "pulumi-reviewadmin routes",
    "pulumi-reviewadmin routes --json > routes.json",
    "pulumi-reviewadmin routes --openapi vendor-openapi.yaml",
    "pulumi-reviewadmin routes --openapi vendor-openapi.json --json | jq '.routes[] | select(.status != \"same\")'",
    "pulumi-reviewadmin routes --openapi-out ours.yaml",
  ],
  async run(options, io) {
    const document = options.openapi as string | undefined;
    const out = options["openapi-out"] as string | undefined;
    if (document !== undefined && out !== undefined) throw new UsageError("--openapi and --openapi-out do not go together");
    if (out !== undefined) {
      if (options.json) throw new UsageError("--openapi-out takes no --json: the file's name says YAML or JSON");
      return writeDocument(out, io);
    }
    if (document !== undefined) return compare(document, options.json === true, io);
    const rows = routeList.map((r) => ({ id: r.id, operationId: r.operationId, method: r.method, path: r.path, access: r.access }));
    if (options.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    const w = (k: "id" | "operationId" | "method") => Math.max(...rows.map((r) => r[k].length));
    for (const r of rows)
      io.out(`${r.id.padEnd(w("id"))}  ${r.operationId.padEnd(w("operationId"))}  ${r.method.padEnd(w("method"))}  ${r.path}`);
    return 0;
  },
};

/** Writes the built-in routes as an OpenAPI document. */
function writeDocument(file: string, io: Io): number {
  const doc = openApiDocumentOf(undefined, "Review platform administration API (the routes pulumi-reviewadmin uses)");
  fs.writeFileSync(file, /\.ya?ml$/i.test(file) ? stringify(doc, { lineWidth: 0 }) : `${JSON.stringify(doc, null, 2)}\n`);
  io.out(`wrote the ${routeList.length} built-in routes to ${file} (OpenAPI ${String(doc.openapi)})`);
  return 0;
}

/** Compares the built-in routes with a document; prints the table (or JSON) and returns the exit code. */
function compare(file: string, json: boolean, io: Io): number {
  let result: OpenApiRoutes;
  try {
    result = readOpenApi(file);
  } catch (err) {
    if (!(err instanceof OpenApiError)) throw err;
    io.err(`pulumi-reviewadmin routes: ${err.message}`);
    return TROUBLE;
  }
  const count = (status: RouteComparison["status"]) => result.routes.filter((r) => r.status === status).length;
  const code = result.routes.every((r) => r.status === "same") ? SAME : DIFFERENT;
  if (json) {
    const summary = {
      same: count("same"),
      different: count("different"),
      missing: count("missing"),
      unmappable: count("unmappable"),
      onlyInDocument: result.onlyInDocument.length,
    };
    io.out(JSON.stringify({ ...result, summary, exitCode: code }, null, 2));
    return code;
  }

  const title = result.title ? `, "${result.title}"` : "";
  const lines = [`The routes this version uses against ${file} (OpenAPI ${result.version}${title}):`, ""];
  const w = {
    id: Math.max(...result.routes.map((r) => r.id.length)),
    op: Math.max(...result.routes.map((r) => r.operationId.length)),
    status: Math.max(...Object.values(LABEL).map((l) => l.length)),
  };
  const indent = " ".repeat(w.id + w.op + w.status + 6);
  for (const r of result.routes) {
    lines.push(`${r.id.padEnd(w.id)}  ${r.operationId.padEnd(w.op)}  ${LABEL[r.status].padEnd(w.status)}  ${r.ours.method} ${r.ours.path}`);
    if (r.status === "different") lines.push(`${indent}document: ${r.document!.method} ${r.document!.path}${detailsOf(r)}`);
    if (r.problem) lines.push(`${indent}${r.problem.slice(r.operationId.length + 2)}`);
  }
  for (const d of result.onlyInDocument) {
    lines.push(
      `${"-".padEnd(w.id)}  ${(d.operationId ?? "(no operationId)").padEnd(w.op)}  ${"only in the document".padEnd(w.status)}  ${d.method} ${d.path}`,
    );
  }
  lines.push(
    "",
    `${plural(result.routes.length, "operation")}: ${count("same")} same, ${count("different")} different, ${count("missing")} missing, ` +
      `${count("unmappable")} cannot be mapped; ${result.onlyInDocument.length} only in the document (not used by this package).`,
    "",
    verdict(result, file),
  );
  io.out(lines.join("\n"));
  return code;
}

/** What a different row's line adds: the document's operationId when spelled otherwise, and how its path parameters map to ours. */
function detailsOf(r: RouteComparison): string {
  const notes: string[] = [];
  if (r.document!.operationId !== r.operationId) notes.push(`operationId ${r.document!.operationId}`);
  const renamed = Object.entries(r.renamed ?? {});
  if (renamed.length) notes.push(renamed.map(([theirs, ours]) => `{${theirs}} is ${ours}`).join(", "));
  return notes.length ? `  (${notes.join("; ")})` : "";
}

/** The one paragraph that says what to do next. */
function verdict(result: OpenApiRoutes, file: string): string {
  const broken = result.routes.filter((r) => r.problem);
  if (broken.length) {
    return (
      `The provider refuses this document: ${broken.map((r) => r.operationId).join(", ")} cannot be served from it, so every resource and ` +
      `data source that calls them would fail. The document is yours to edit: add the operations it lacks (or correct their operationId), then run this again.`
    );
  }
  if (result.routes.every((r) => r.status === "same")) return "The document agrees with the built-in routes: nothing to configure.";
  return (
    `Resources would fail on the built-in routes: use the document's. In a stack: pulumi config set reviewadmin:openapi ${file} ` +
    `(a path relative to the project folder); for scripts and the doctor: REVIEWADMIN_OPENAPI=${file}. Then check the key: npx --no-install pulumi-reviewadmin doctor.`
  );
}
