/**
 * The files of an exported Pulumi project around access.ts: index.ts (the program, in the chosen
 * style and mode), Pulumi.yaml, package.json, tsconfig.json, README.md and .gitignore. Nothing in
 * them depends on the time or the machine of the export, so re-exporting the same world rewrites
 * them byte for byte.
 */
import type { ProgramStyle } from "./accessFile";
import type { ExportedAccess } from "./read";
import { wallDeclarations, type ExportedWalls } from "./wallsFile";

/** What the project files need besides the access. */
export interface ProjectOptions extends ProgramStyle {
  /** The Pulumi project name. */
  project: string;
  /** The base URL the access was read from (for the README's config commands). */
  baseUrl: string;
  /** The export command line that reproduces this export, credentials and --out left out. */
  commandLine: string;
  /** "plugin": the program uses `reviewadmin.plugin.*` and its Pulumi.yaml names the provider plugin (docs/plugin.md). */
  face: "dynamic" | "plugin";
  /** Versions the exported package.json depends on. */
  versions: { package: string; pulumi: string; typescript: string; typesNode: string; node: string };
  /** The walls of `--walls FILE`: declared in index.ts in place of the commented template. */
  walls?: ExportedWalls;
}

const RETAIN_COMMENT = `/**
 * Everything this program declares existed before it: its first up adopted it (the output says
 * "adopted") and wrote nothing. retainOnDelete keeps what it did not create in place when a
 * resource is deleted (a line or an organization removed from access.ts, \`pulumi destroy\`): the
 * resource stops being managed and the access stays. To take access away, give its line an end
 * date in access.ts (expiresOn): the resource stays, and the first up on or after that day removes
 * the access (a review's remove decision does this).
 */`;

const NO_RETAIN_COMMENT = `/**
 * Everything this program declares existed before it: its first up adopted it (the output says
 * "adopted") and wrote nothing. Exported with --no-retain: deleting a resource (a line removed
 * from access.ts, \`pulumi destroy\`) takes the access it manages away; the output warns when it
 * removes someone who was there before this program.
 */`;

function adoptedOptions(o: ProjectOptions): string {
  return o.retainOnDelete
    ? `${RETAIN_COMMENT}\nconst adopted: pulumi.CustomResourceOptions = { retainOnDelete: true };`
    : `${NO_RETAIN_COMMENT}\nconst adopted: pulumi.CustomResourceOptions = {};`;
}

function rostersProgram(o: ProjectOptions): string {
  return `/**
 * ${o.project}: organization access as code, exported by \`pulumi-reviewadmin export\`.
 * The access is data in access.ts; this program declares one OrganizationMembers roster per
 * organization and one DatabaseUsers roster per database. Credentials: stack config
 * \`reviewadmin:apiKey\` (set with --secret) and \`reviewadmin:baseUrl\`, or the environment
 * variables REVIEWADMIN_API_KEY and REVIEWADMIN_BASE_URL.
 */
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";
import { organizations, type Invitation, type Member } from "./access";

/**
 * "additive": people and grants not in access.ts are left alone and listed in \`notInAccessFile\`
 * for the next access review. "authoritative": the next up removes them (protected emails
 * excepted); preview first, its diff names everyone who would go.
 */
const mode = ${JSON.stringify(o.mode)} as reviewadmin.RosterMode;

${adoptedOptions(o)}

/** Per organization: who is there (members and invitations) but not in access.ts. */
export const notInAccessFile: Record<string, pulumi.Output<string[]>> = {};

/** A roster entry of a line of access.ts, with its dates (past expiresOn, up removes the person). */
const entry = (p: Member | Invitation) => ({
  firstName: p.firstName,
  lastName: p.lastName,
  permissions: p.permissions,
  expiresOn: p.expiresOn,
  startsOn: p.startsOn,
});

for (const org of organizations) {
  const roster = new reviewadmin.OrganizationMembers(
    \`organization-\${org.id}\`,
    {
      organizationId: org.id,
      mode,
      members: Object.fromEntries([
        ...org.members.map((m) => [m.email, { ...entry(m), userIdentifiers: m.identifiers }]),
        ...org.invitations.map((i) => [i.email, entry(i)]),
        // An expired invitation given an end date (a review's remove) is managed until then: withdrawn once it has passed.
        ...org.expiredInvitations.filter((i) => i.expiresOn !== undefined).map((i) => [i.email, entry(i)]),
      ]),
      // Expired invitations wait for a decision (see access.ts): an authoritative roster must not delete them meanwhile.
      protectedEmails: mode === "authoritative" ? org.expiredInvitations.map((i) => i.email) : undefined,
      // People accepted as they are: the drift gate passes them (an additive roster's undeclared admins).
      knownExceptions: org.knownExceptions,
    },
    adopted,
  );
  notInAccessFile[String(org.id)] = roster.unmanaged.apply((people) => people.map((p) => \`\${p.email} (\${p.status})\`));

  for (const db of org.databases) {
    new reviewadmin.DatabaseUsers(
      \`database-\${db.id}\`,
      { databaseId: db.id, mode, users: db.users, knownExceptions: db.knownExceptions },
      adopted,
    );
  }
}
`;
}

function perPersonProgram(o: ProjectOptions): string {
  return `/**
 * ${o.project}: organization access as code, exported by \`pulumi-reviewadmin export\`.
 * The access is data in access.ts; this program declares one OrgMember per member and
 * invitation and one DatabaseUserPermissions per grant. Credentials: stack config
 * \`reviewadmin:apiKey\` (set with --secret) and \`reviewadmin:baseUrl\`, or the environment
 * variables REVIEWADMIN_API_KEY and REVIEWADMIN_BASE_URL.
 */
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";
import { organizations } from "./access";

${adoptedOptions(o)}

for (const org of organizations) {
  const organizationId = org.id;
  for (const m of org.members) {
    new reviewadmin.OrgMember(
      \`member-\${org.id}-\${m.email}\`,
      { organizationId, email: m.email, firstName: m.firstName, lastName: m.lastName, permissions: m.permissions, userIdentifiers: m.identifiers, expiresOn: m.expiresOn },
      adopted,
    );
  }
  // Named like members: an OrgMember follows the person from invited to member.
  for (const i of org.invitations) {
    new reviewadmin.OrgMember(
      \`member-\${org.id}-\${i.email}\`,
      { organizationId, email: i.email, firstName: i.firstName, lastName: i.lastName, permissions: i.permissions, expiresOn: i.expiresOn },
      adopted,
    );
  }
  // Adopted as they are and not re-sent until decided (see expiredInvitations in access.ts).
  for (const i of org.expiredInvitations) {
    new reviewadmin.OrgMember(
      \`member-\${org.id}-\${i.email}\`,
      { organizationId, email: i.email, firstName: i.firstName, lastName: i.lastName, permissions: i.permissions, resendWhenExpired: false, expiresOn: i.expiresOn },
      adopted,
    );
  }
  for (const db of org.databases) {
    for (const [userId, grant] of Object.entries(db.users)) {
      const { permissions, expiresOn } = Array.isArray(grant) ? { permissions: grant, expiresOn: undefined } : grant;
      new reviewadmin.DatabaseUserPermissions(\`grant-\${db.id}-\${userId}\`, { databaseId: db.id, userId: Number(userId), permissions, expiresOn }, adopted);
    }
  }
}
`;
}

/**
 * Ethical walls are not in the API, so the export cannot know them: index.ts ends with a
 * commented EthicalWall over the exported databases for whoever keeps the walls to fill in.
 */
export function wallTemplate(access: ExportedAccess): string {
  const dbs = access.organizations.flatMap((org) => org.databases).sort((a, b) => a.id - b.id);
  const ids = dbs.length ? dbs.map((d) => d.id).join(", ") : "/* database ids */";
  const names = dbs.map((d) => `${d.name.replace(/[\r\n\u2028\u2029]+/g, " ")} (${d.id})`).join(", ");
  return [
    "",
    "// Ethical walls are not in the service's API, so the export cannot know them. Declare each wall",
    "// here: the policy pack then refuses any grant that crosses it, and refresh reports the grants",
    "// made in the web application that do. For example, over the exported databases:",
    "//",
    `// new reviewadmin.EthicalWall("wall-1", {`,
    `//   databaseIds: [${ids}],${names ? ` // ${names}` : ""}`,
    `//   people: ["someone@example.com", "*@opposing-counsel.example"],`,
    `//   reason: "why the wall stands (a conflict, a lateral hire)",`,
    `//   onBreach: "report", // or "remove": up removes the grants that cross the wall`,
    "// });",
    "",
  ].join("\n");
}

function readme(access: ExportedAccess, o: ProjectOptions): string {
  const orgs = access.organizations.map((org) => `${org.name} (organization ${org.id})`).join(", ");
  const what =
    o.style === "rosters"
      ? `one \`OrganizationMembers\` roster per organization and one \`DatabaseUsers\` roster per database, in ${o.mode} mode`
      : "one `OrgMember` per member or invitation and one `DatabaseUserPermissions` per grant";
  return `# ${o.project}

The access of ${orgs} as code, exported by \`pulumi-reviewadmin export\`.
\`access.ts\` is the data (who holds which access); \`index.ts\` declares ${what}.

## First run: adopt everything, change nothing

\`\`\`sh
mkdir -p vendor && cp <path>/pulumi-reviewadmin-${o.versions.package}.tgz vendor/   # the release tarball (not on the npm registry yet)
npm install ./vendor/pulumi-reviewadmin-${o.versions.package}.tgz                 # never \`npm install pulumi-reviewadmin\` by name
pulumi stack init <stack>
pulumi config set reviewadmin:baseUrl ${o.baseUrl}
pulumi config set --secret reviewadmin:apiKey   # paste the key when asked: it is stored encrypted
pulumi preview                                  # every resource shows as a create: each adopts what exists
pulumi up                                       # adopts; sends no write request
pulumi preview --refresh --expect-no-changes    # the proof: nothing differs
\`\`\`

Then commit this folder, \`vendor/\` and \`package-lock.json\` included, so that \`npm ci\` in a
pipeline installs exactly this package and never asks the registry for its name. From now on a
change of access is a pull request against \`access.ts\`, and its preview is the access review;
lines marked \`DECIDE\` in \`access.ts\` wait for one.

## Export again

\`\`\`sh
${o.commandLine} --out . --force
git diff     # exactly what changed in the service since the last export
\`\`\`

The export rewrites only the files it made, in a fixed order, so the diff shows real changes only.
`;
}

/** The files of the project other than access.ts, by name. */
/** The Pulumi.yaml lines that name the package's provider plugin (the plugin face). */
export const PLUGIN_PROVIDERS = `# The reviewadmin provider plugin, from the package npm installs here (package.json).
plugins:
  providers:
    - name: reviewadmin
      path: ./node_modules/pulumi-reviewadmin/plugin
`;

/** A program of the dynamic face as the plugin face writes it: the same classes under \`reviewadmin.plugin\`. */
function onFace(program: string, face: ProjectOptions["face"]): string {
  return face === "plugin" ? program.replace(/new reviewadmin\.(?=[A-Z])/g, "new reviewadmin.plugin.") : program;
}

export function projectFiles(access: ExportedAccess, o: ProjectOptions): Record<string, string> {
  const orgs = access.organizations.map((org) => `${org.name} (${org.id})`).join(", ");
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  return {
    "Pulumi.yaml": `name: ${o.project}
runtime:
  name: nodejs
  options:
    typescript: true
description: ${JSON.stringify(`The access of ${orgs} as code, exported by pulumi-reviewadmin export.`)}
main: index.ts
${o.face === "plugin" ? PLUGIN_PROVIDERS : ""}`,
    "package.json": json({
      name: o.project,
      private: true,
      description: `The access of ${orgs} as code (Pulumi, pulumi-reviewadmin).`,
      engines: { node: o.versions.node },
      dependencies: { "@pulumi/pulumi": o.versions.pulumi, "pulumi-reviewadmin": `^${o.versions.package}` },
      devDependencies: { "@types/node": o.versions.typesNode, typescript: o.versions.typescript },
    }),
    "tsconfig.json": json({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "node16",
        moduleResolution: "node16",
        esModuleInterop: true,
        skipLibCheck: true,
        types: ["node"],
        outDir: "bin",
      },
      files: ["index.ts", "access.ts"],
    }),
    "index.ts": onFace(
      (o.style === "rosters" ? rostersProgram(o) : perPersonProgram(o)) + (o.walls ? wallDeclarations(o.walls) : wallTemplate(access)),
      o.face,
    ),
    "README.md": readme(access, o),
    ".gitignore": "node_modules/\nbin/\n",
  };
}
