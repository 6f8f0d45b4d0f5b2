/**
 * The exported project in Pulumi YAML (`export --language yaml`), for the plugin face: one
 * Pulumi.yaml that declares, per organization, an OrganizationMembers roster and, per database, a
 * DatabaseUsers roster, with the same inputs as the TypeScript project's index.ts and access.ts, so
 * its first `pulumi up` adopts everything and sends no write request. The `reviewadmin` plugin comes
 * from the package installed beside it (package.json; `plugins.providers` in Pulumi.yaml).
 */
import type { ProgramStyle } from "./accessFile";
import { commentText } from "./accessFile";
import { PLUGIN_PROVIDERS } from "./projectFiles";
import type { ExportedAccess, ExportedInvitation, ExportedMember, ExportedOrganization } from "./read";

/** What the YAML project needs besides the access. */
export interface YamlProjectOptions extends ProgramStyle {
  project: string;
  commandLine: string;
  versions: { package: string; node: string };
}

/** A YAML flow value (JSON is YAML). */
const flow = (v: unknown) => JSON.stringify(v);
const day = (iso: string) => iso.slice(0, 10);

function names(p: { firstName?: string; lastName?: string }): Record<string, string> {
  return {
    ...(p.firstName !== undefined ? { firstName: p.firstName } : {}),
    ...(p.lastName !== undefined ? { lastName: p.lastName } : {}),
  };
}

function memberEntry(m: ExportedMember): string {
  const ids = m.identifiers === undefined ? {} : { userIdentifiers: m.identifiers };
  return `          ${flow(m.email)}: ${flow({ ...names(m), permissions: m.permissions, ...ids })}`;
}

function invitationEntry(i: ExportedInvitation): string {
  return `          ${flow(i.email)}: ${flow({ ...names(i), permissions: i.permissions })} # invited, expires ${day(i.expiration)}`;
}

function organizationResources(org: ExportedOrganization, o: YamlProjectOptions): string[] {
  const pending = org.invitations.filter((i) => !i.expired);
  const expired = org.invitations.filter((i) => i.expired);
  const options = o.retainOnDelete ? ["    options:", "      retainOnDelete: true"] : [];
  const out = [
    `  # ${commentText(org.name)}`,
    `  organization-${org.id}:`,
    "    type: reviewadmin:index:OrganizationMembers",
    "    properties:",
    `      organizationId: ${org.id}`,
    `      mode: ${o.mode}`,
  ];
  const entries = [...org.members.map(memberEntry), ...pending.map(invitationEntry)];
  out.push(entries.length ? "      members:" : "      members: {}", ...entries);
  for (const i of expired)
    out.push(`      # DECIDE: ${commentText(i.email)}'s invitation expired ${day(i.expiration)}: re-send (add it to members) or drop?`);
  // Expired invitations wait for a decision: an authoritative roster must not delete them meanwhile.
  if (o.mode === "authoritative" && expired.length) out.push(`      protectedEmails: ${flow(expired.map((i) => i.email))}`);
  out.push(...options);
  for (const db of org.databases) {
    out.push(
      `  # ${commentText(db.name)}`,
      `  database-${db.id}:`,
      "    type: reviewadmin:index:DatabaseUsers",
      "    properties:",
      `      databaseId: ${db.id}`,
      `      mode: ${o.mode}`,
    );
    if (db.grants.length === 0) out.push("      users: {}");
    else {
      out.push("      users:");
      for (const g of db.grants) {
        const notes = [commentText(g.who), ...(g.member ? [] : [`not a member of ${commentText(org.name)}`])];
        if (!g.active) notes.push("DECIDE: suspended account: keep this grant or remove it?");
        out.push(`        "${g.userId}": ${flow(g.permissions)} # ${notes.join("; ")}`);
      }
    }
    out.push(...options);
  }
  return out;
}

/** The files of a YAML project: Pulumi.yaml, package.json (the plugin), README.md, .gitignore. */
export function yamlProjectFiles(access: ExportedAccess, o: YamlProjectOptions): Record<string, string> {
  const orgs = access.organizations.map((org) => `${org.name} (${org.id})`).join(", ");
  const program = [
    `name: ${o.project}`,
    "runtime: yaml",
    `description: ${flow(`The access of ${orgs} as code, exported by pulumi-reviewadmin export.`)}`,
    PLUGIN_PROVIDERS.trimEnd(),
    "# Everything below existed before this program: its first up adopts it and writes nothing.",
    `# ${o.mode === "additive" ? "additive: people and grants not listed here are left alone." : "authoritative: the next up removes people and grants not listed here."}`,
    "# To take access away, give the person an end date (expiresOn: YYYY-MM-DD) or remove their line.",
    "resources:",
    ...access.organizations.flatMap((org) => organizationResources(org, o)),
    "",
  ].join("\n");
  return {
    "Pulumi.yaml": program,
    "package.json": `${JSON.stringify(
      {
        name: o.project,
        private: true,
        description: `The access of ${orgs} as code (Pulumi YAML, pulumi-reviewadmin's plugin).`,
        engines: { node: o.versions.node },
        dependencies: { "pulumi-reviewadmin": `^${o.versions.package}` },
      },
      null,
      2,
    )}\n`,
    "README.md": `# ${o.project}

The access of ${orgs} as code, in Pulumi YAML, exported by:

    ${o.commandLine}

Run once: \`npm install\` (the reviewadmin provider plugin; Node ${o.versions.node}), then
\`pulumi stack init\`, \`pulumi config set reviewadmin:baseUrl <url>\` and
\`pulumi config set --secret reviewadmin:apiKey <key>\`. The first \`pulumi up\` adopts everything
and sends no write request. Lines marked DECIDE wait for a person's decision.
`,
    ".gitignore": "node_modules/\n",
  };
}
