/**
 * `pulumi-reviewadmin export`: reads the live access of organizations and writes a ready Pulumi
 * project that adopts it: its first `pulumi up` sends no write request. Reading is in
 * export/read.ts, access.ts in export/accessFile.ts, the other files in export/projectFiles.ts,
 * the output folder in export/writeProject.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { currentClient } from "../provider/settings";
import { plural, positiveInt, UsageError, type Command } from "./command";
import { credentialOptions, credentials } from "./credentials";
import { ownPackage } from "./packageInfo";
import { renderAccessFile, type ProgramStyle } from "./export/accessFile";
import { projectFiles } from "./export/projectFiles";
import { yamlProjectFiles } from "./export/yamlProject";
import { accessOf, organizationFolders, type OrganizationProject } from "./export/perOrganization";
import { readAccess, type ExportedAccess, type ExportScope } from "./export/read";
import { checkOutputFolder, writeProject } from "./export/writeProject";
import { readWallsForExport, wallsSummary, type ExportedWalls } from "./export/wallsFile";

const DEFAULT_OUT = "reviewadmin-access";
/** A Pulumi project name that is also an npm package name. */
const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]*$/;

type Options = Record<string, string | boolean | string[] | undefined>;

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be ${allowed.join(" or ")}, got '${String(value)}'`);
  return value as T;
}

/** The export command line that reproduces this export (credentials, --out and --force left out), for the project's README. */
function commandLineOf(o: Options, scope: ExportScope, style: ProgramStyle, project: string | undefined): string {
  const parts = ["npx --no-install pulumi-reviewadmin export"];
  for (const id of scope.organizations ?? []) parts.push(`--org ${id}`);
  if (style.style !== "rosters") parts.push(`--style ${style.style}`);
  if (style.mode !== "additive") parts.push(`--mode ${style.mode}`);
  if (o.language === "yaml") parts.push("--language yaml");
  if (o.face === "plugin" && o.language !== "yaml") parts.push("--face plugin");
  for (const flag of ["no-grants", "no-invitations", "no-identifiers", "no-retain"]) if (o[flag]) parts.push(`--${flag}`);
  if (project) parts.push(`--project ${project}`);
  return parts.join(" ");
}

function versions() {
  const own = ownPackage();
  return {
    package: own.version,
    pulumi: own.dependencies["@pulumi/pulumi"]!,
    typescript: own.devDependencies.typescript!,
    typesNode: own.devDependencies["@types/node"]!,
    node: own.engines.node,
  };
}

/**
 * The project name when --project is not given: the name in the folder's Pulumi.yaml when
 * re-exporting into a project (so `--out . --force` never renames it and orphans its stacks),
 * else the output folder's name, as `pulumi new` names a project after its folder, made a valid
 * name (lower case, other characters as '-'); DEFAULT_OUT when nothing valid is left.
 */
function defaultProjectName(out: string): string {
  let existing: string | undefined;
  try {
    existing = /^name:\s*["']?([^"'\s#]+)/m.exec(fs.readFileSync(path.join(out, "Pulumi.yaml"), "utf8"))?.[1];
  } catch {
    // no project there yet
  }
  if (existing && PROJECT_NAME.test(existing)) return existing;
  const fromFolder = path
    .basename(path.resolve(out))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .slice(0, 100)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return fromFolder || DEFAULT_OUT;
}

/** What an export did, as `--json` prints it. */
export interface ExportSummary {
  out: string;
  organizations: {
    id: number;
    name: string;
    members: number;
    invitations: number;
    expiredInvitations: number;
    databases: number;
    databasesNotReadable: number;
    grants: number;
  }[];
  requests: number;
  seconds: number;
  /** With --walls: the walls declared (resource names) and the file's problems by line. */
  walls?: { file: string; declared: string[]; problems: { line: number; message: string }[] };
  /** With --per-organization: each organization's project, its folder (under `out`) and its Pulumi project name. */
  projects?: { id: number; folder: string; project: string }[];
}

function summaryJson(access: ExportedAccess, out: string, requests: number, wallMs: number): ExportSummary {
  return {
    out,
    organizations: access.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      members: o.members.length,
      invitations: o.invitations.filter((i) => !i.expired).length,
      expiredInvitations: o.invitations.filter((i) => i.expired).length,
      databases: o.databases.length,
      databasesNotReadable: o.skippedDatabases.length,
      grants: o.databases.reduce((n, d) => n + d.grants.length, 0),
    })),
    requests,
    seconds: Math.round(wallMs / 100) / 10,
  };
}

/** One paragraph: what was exported, where, at what cost. */
function summaryOf(access: ExportedAccess, out: string, requests: number, wallMs: number, projects?: ExportSummary["projects"]): string {
  const orgs = access.organizations;
  const sum = (f: (o: (typeof orgs)[number]) => number) => orgs.reduce((n, o) => n + f(o), 0);
  const invitations = sum((o) => o.invitations.length);
  const expired = sum((o) => o.invitations.filter((i) => i.expired).length);
  const skipped = sum((o) => o.skippedDatabases.length);
  const parts = [
    plural(orgs.length, "organization"),
    plural(
      sum((o) => o.members.length),
      "member",
    ),
  ];
  if (access.scope.invitations) parts.push(`${plural(invitations, "invitation")} (${expired} expired)`);
  if (access.scope.grants) {
    parts.push(
      `${plural(
        sum((o) => o.databases.length),
        "database",
      )}${skipped ? ` (${skipped} more not readable with this key)` : ""}`,
    );
    parts.push(
      plural(
        sum((o) => o.databases.reduce((n, d) => n + d.grants.length, 0)),
        "grant",
      ),
    );
  }
  const done = `Exported ${parts.join(", ")} to ${out} with ${plural(requests, "API request")} in ${(wallMs / 1000).toFixed(1)} s.`;
  const next = `npm install <the pulumi-reviewadmin .tgz this command came from> (not by name: the package is not on the npm registry yet), then follow its README.md (pulumi stack init, config, pulumi preview, pulumi up: the first up adopts and writes nothing).`;
  if (!projects) return [done, `Next: cd ${out} && ${next}`].join("\n");
  return [
    done,
    `One project per organization: ${projects.map((p) => `${path.join(out, p.folder)} (organization ${p.id}, project ${p.project})`).join(", ")}.`,
    `Next, in each: ${next} docs/gitops.md, "One stack per organization", runs them in parallel, each with its organization's key.`,
  ].join("\n");
}

/** The export command (see its description). */
export const exportCommand: Command = {
  name: "export",
  summary: "write a Pulumi project that adopts an organization's live access",
  description: `
Reads the live access of organizations (members with their permissions and identifiers, pending
and expired invitations, every user's permissions on their databases) and writes a ready Pulumi
project: Pulumi.yaml, package.json, tsconfig.json, index.ts, and the access itself as typed data
in access.ts, sorted so that two exports of the same world are byte-identical and a later export
diffs cleanly against a committed one. The project's first \`pulumi up\` adopts everything and
sends no write request.

Credentials: the key from REVIEWADMIN_API_KEY (or the variable --api-key-env names, or the file
--api-key-file names; never the key itself as a flag), the base URL from REVIEWADMIN_BASE_URL or
--base-url. The key needs org admin on every organization exported (an organization-level key,
or an org admin's key); databases whose users it cannot read are named in access.ts.

Progress goes to stderr, the summary to stdout. Bad input writes nothing.`,
  options: {
    org: {
      type: "string",
      multiple: true,
      value: "ID",
      help: "an organization to export (repeat for more); default: every organization the key administers",
    },
    out: {
      type: "string",
      short: "o",
      value: "DIR",
      help: `folder to write the project into (default ${DEFAULT_OUT}); refused when not empty`,
    },
    force: { type: "boolean", help: "write into a folder that is not empty (rewrites the exported files, leaves the others)" },
    style: {
      type: "string",
      value: "STYLE",
      help: "rosters (default: OrganizationMembers + DatabaseUsers) or per-person (OrgMember + DatabaseUserPermissions)",
    },
    mode: { type: "string", value: "MODE", help: "roster mode: additive (default: never removes anyone) or authoritative" },
    language: {
      type: "string",
      value: "LANG",
      help: "typescript (default: the package's classes, in index.ts and access.ts) or yaml (Pulumi.yaml, on the reviewadmin provider plugin; rosters only)",
    },
    face: {
      type: "string",
      value: "FACE",
      help: "dynamic (default for typescript: the dynamic provider) or plugin (the reviewadmin provider plugin: explicit providers, detailed diffs, import; yaml always uses it)",
    },
    walls: {
      type: "string",
      value: "FILE",
      help: "the firm's walls as a CSV from its wall system (docs/walls.md): written into index.ts as EthicalWall resources; unknown people and matters are reported with their lines",
    },
    "no-grants": { type: "boolean", help: "leave database grants out" },
    "no-invitations": { type: "boolean", help: "leave pending and expired invitations out (additive mode only)" },
    "no-identifiers": { type: "boolean", help: "leave user identifiers out (not managed by the program)" },
    "no-retain": { type: "boolean", help: "do not set retainOnDelete on the adopted resources" },
    project: {
      type: "string",
      value: "NAME",
      help: "Pulumi project name (default: the output folder's name, e.g. access for --out access; when rewriting a project with --force, the name in its Pulumi.yaml); with --per-organization, the first part of each project's name",
    },
    "per-organization": {
      type: "boolean",
      help: "one project per organization, each in a folder of its own under --out named after the organization (access/northwind-legal/), its project named <project>-<folder>; a sub-organization gets its own",
    },
    ...credentialOptions,
    quiet: { type: "boolean", short: "q", help: "no progress lines on stderr" },
    json: {
      type: "boolean",
      help: "print the summary as JSON on stdout (per organization: members, invitations, databases, grants; requests)",
    },
  },
  examples: [
    "pulumi-reviewadmin export --out access   # the key from REVIEWADMIN_API_KEY, the URL from REVIEWADMIN_BASE_URL",
    "pulumi-reviewadmin export --org 102 --mode authoritative --api-key-file ~/.reviewadmin-key --out access",
    "pulumi-reviewadmin export --out access --force && git -C access diff   # what changed since the last export",
    "pulumi-reviewadmin export --language yaml --out access-yaml   # a Pulumi YAML project on the provider plugin",
    "pulumi-reviewadmin export --face plugin --out access   # TypeScript on the provider plugin (reviewadmin.plugin.*)",
    "pulumi-reviewadmin export --walls walls.csv --out access   # and the firm's walls from its wall system's CSV",
    "pulumi-reviewadmin export --per-organization --out access   # access/<organization>/, one stack per organization",
  ],

  async run(o, io) {
    const started = performance.now();
    const organizations = (o.org as string[] | undefined)?.map((v) => positiveInt("org", v)!);
    const scope: ExportScope = {
      ...(organizations ? { organizations } : {}),
      grants: !o["no-grants"],
      invitations: !o["no-invitations"],
      identifiers: !o["no-identifiers"],
    };
    const style: ProgramStyle = {
      style: oneOf("style", o.style, ["rosters", "per-person"] as const, "rosters"),
      mode: oneOf("mode", o.mode, ["additive", "authoritative"] as const, "additive"),
      retainOnDelete: !o["no-retain"],
    };
    if (style.style === "per-person" && o.mode !== undefined) throw new UsageError("--mode applies to --style rosters only");
    if (style.mode === "authoritative" && !scope.invitations) {
      throw new UsageError("--no-invitations needs --mode additive: an authoritative roster removes the invitations it does not list");
    }
    const language = oneOf("language", o.language, ["typescript", "yaml"] as const, "typescript");
    if (language === "yaml" && style.style !== "rosters")
      throw new UsageError("--language yaml writes rosters: leave out --style per-person");
    const face = oneOf("face", o.face, ["dynamic", "plugin"] as const, language === "yaml" ? "plugin" : "dynamic");
    if (language === "yaml" && face !== "plugin")
      throw new UsageError("--language yaml runs on the provider plugin: leave out --face dynamic");
    const project = o.project as string | undefined;
    if (project !== undefined && !PROJECT_NAME.test(project)) {
      throw new UsageError(
        `--project must be lower-case letters, digits, '.', '_' or '-' (a Pulumi project and npm package name), got '${project}'`,
      );
    }
    const wallsFile = o.walls as string | undefined;
    if (wallsFile !== undefined && language === "yaml")
      throw new UsageError("--walls writes EthicalWall resources into index.ts: leave out --language yaml");
    if (wallsFile !== undefined && !scope.grants)
      throw new UsageError("--walls needs the databases the walls close: leave out --no-grants");
    const perOrganization = o["per-organization"] === true;
    if (wallsFile !== undefined && perOrganization)
      throw new UsageError(
        "--walls with --per-organization: a wall may close databases of several organizations; export the walls with --org for the organization that owns their databases",
      );
    const out = (o.out as string | undefined) ?? DEFAULT_OUT;
    checkOutputFolder(out, o.force === true);
    // The other settings (timeouts, attempts, debug log) come from REVIEWADMIN_* as in a program.
    const client = currentClient(credentials(o));
    const sentBefore = client.stats.requests;
    let access: ExportedAccess;
    try {
      access = await readAccess(client, scope, o.quiet ? undefined : (line) => io.err(`export: ${line}`));
    } finally {
      // Its sockets would keep the process alive.
      await client.close();
    }
    const requests = client.stats.requests - sentBefore;
    const walls: ExportedWalls | undefined = wallsFile === undefined ? undefined : readWallsForExport(wallsFile, access);

    /** The files of a project of `part` (all of the access, or one organization's) named `projectName`. */
    const filesOf = (part: ExportedAccess, projectName: string, commandLine: string): Record<string, string> =>
      language === "yaml"
        ? yamlProjectFiles(part, { ...style, project: projectName, commandLine, versions: versions() })
        : {
            ...projectFiles(part, {
              ...style,
              project: projectName,
              commandLine,
              face,
              baseUrl: client.baseUrl,
              versions: versions(),
              ...(walls ? { walls } : {}),
            }),
            "access.ts": renderAccessFile(part, style),
          };
    let projects: ExportSummary["projects"];
    if (perOrganization) {
      const base = project ?? defaultProjectName(out);
      const folders = organizationFolders(out, access.organizations);
      projects = [];
      for (const [i, org] of access.organizations.entries()) {
        const { folder } = folders[i] as OrganizationProject;
        const dir = path.join(out, folder);
        // Re-exporting into a project keeps its name (its stacks are named after it).
        const existing = fs.existsSync(path.join(dir, "Pulumi.yaml")) ? defaultProjectName(dir) : undefined;
        const name = existing ?? `${base}-${folder}`;
        const part = accessOf(access, org);
        writeProject(dir, filesOf(part, name, commandLineOf(o, part.scope, style, undefined)));
        projects.push({ id: org.id, folder, project: name });
      }
    } else {
      writeProject(out, filesOf(access, project ?? defaultProjectName(out), commandLineOf(o, scope, style, project)));
    }
    const wallMs = performance.now() - started;
    const summary = summaryJson(access, path.normalize(out), requests, wallMs);
    if (walls) summary.walls = { file: walls.file, declared: walls.walls.map((w) => w.name), problems: walls.problems };
    if (projects) summary.projects = projects;
    io.out(
      o.json === true
        ? JSON.stringify(summary, null, 2)
        : [summaryOf(access, path.normalize(out), requests, wallMs, projects), ...(walls ? [wallsSummary(walls)] : [])].join("\n"),
    );
    return 0;
  },
};
