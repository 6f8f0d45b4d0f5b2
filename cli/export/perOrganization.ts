/**
 * `export --per-organization`: one project per organization, each in a folder of its own under
 * the output folder (access/northwind-legal/, access/contoso-llp/), each holding what `export --org
 * ID` writes for that organization alone, so that each stack adopts only its organization's access
 * and can run with that organization's own key, in parallel with the others.
 *
 * A sub-organization is an organization of its own here: its members, invitations and the
 * databases it owns go into its own project, never into its parent's. That is how the export reads
 * them anyway (each organization's databases are the ones it owns), and how the service keys them:
 * a parent organization key does not reach a sub-organization's members.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ExportedAccess, ExportedOrganization } from "./read";

/** Where one organization's project goes. */
export interface OrganizationProject {
  id: number;
  name: string;
  /** The folder's name under the output folder. */
  folder: string;
}

/** A folder name made of an organization's name: lower case, runs of other characters as '-'. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 60)
    .replace(/^-+|-+$/g, "");
}

/** The organization an earlier export's access.ts in `dir` declares (its block's `id: N,` line), if it is one organization's. */
function organizationIn(dir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, "access.ts"), "utf8");
  } catch {
    return undefined;
  }
  const ids = [...text.matchAll(/^ {4}id: (\d+),$/gm)].map((m) => Number(m[1]));
  return ids.length === 1 ? ids[0] : undefined;
}

/**
 * The folder of each organization's project under `out`: the folder of an earlier
 * per-organization export that holds it, so re-exporting (--force) never moves a project, and so
 * its stacks, when an organization is renamed; else the slug of its name, with `-<id>` added when
 * another organization has the same slug (or the name has none).
 */
export function organizationFolders(out: string, orgs: readonly { id: number; name: string }[]): OrganizationProject[] {
  const earlier = new Map<number, string>();
  if (fs.existsSync(out)) {
    for (const entry of fs.readdirSync(out, { withFileTypes: true })) {
      const id = entry.isDirectory() ? organizationIn(path.join(out, entry.name)) : undefined;
      if (id !== undefined && !earlier.has(id)) earlier.set(id, entry.name);
    }
  }
  const slugCount = new Map<string, number>();
  for (const o of orgs) slugCount.set(slugOf(o.name), (slugCount.get(slugOf(o.name)) ?? 0) + 1);
  const taken = new Set(earlier.values());
  return orgs.map((o) => {
    const kept = earlier.get(o.id);
    if (kept !== undefined) return { id: o.id, name: o.name, folder: kept };
    const slug = slugOf(o.name);
    let folder = slug && slugCount.get(slug) === 1 && !taken.has(slug) ? slug : `${slug || "organization"}-${o.id}`;
    // An earlier export's folder of another organization under the same name: never write over it.
    while (taken.has(folder)) folder = `${folder}-${o.id}`;
    taken.add(folder);
    return { id: o.id, name: o.name, folder };
  });
}

/** The access of one organization, as an export of that organization alone (`--org ID`) reads it. */
export function accessOf(access: ExportedAccess, org: ExportedOrganization): ExportedAccess {
  return { ...access, scope: { ...access.scope, organizations: [org.id] }, organizations: [org] };
}
