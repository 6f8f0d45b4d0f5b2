/**
 * Policy org-admin-count (docs/policy.md): between minOrgAdmins and maxOrgAdmins org admins per
 * organization.
 */
import { ORG_ADMIN } from "../../contract/grants";
import { isNotKnown, label, type Declaration, type Declared } from "../declarations";
import { byScope, emailsByUserId, hasPerm, mayHavePerm, minimumScopes, personKey, pushTo, scopeLabel, type Finding } from "./shared";

/** The org-admin-count rule's config. */
export interface AdminCountConfig {
  /** At most this many distinct org admins per organization (default 3). */
  maxOrgAdmins?: number;
  /** At least this many org admins (default 1; 0 turns the minimum off). */
  minOrgAdmins?: number;
  /** Where the minimum applies: "authoritative" (default) or "declared". */
  scope?: "authoritative" | "declared";
  userEmails?: Record<string, string>;
}

/** What the org-admin-count rule uses for a setting left out. */
export const ADMIN_DEFAULTS = { maxOrgAdmins: 3, minOrgAdmins: 1, scope: "authoritative" } as const;

/**
 * Rule: at most `maxOrgAdmins` distinct people hold ORG_ADMIN in an organization, counting
 * everything the stack declares (invitations too), and at least `minOrgAdmins` in the
 * organizations of `scope`: those the stack owns whole (an authoritative roster, default) or every
 * organization the stack grants permissions in ("declared"). Permissions a resource leaves
 * unmanaged are not counted; protected people are kept but their permissions are not declared.
 */
export function orgAdminCountFindings(declared: Declared, cfg: AdminCountConfig = {}): Finding[] {
  const max = cfg.maxOrgAdmins ?? ADMIN_DEFAULTS.maxOrgAdmins;
  const min = cfg.minOrgAdmins ?? ADMIN_DEFAULTS.minOrgAdmins;
  const which = cfg.scope ?? ADMIN_DEFAULTS.scope;
  const emails = emailsByUserId(declared, cfg.userEmails);
  const { groups, unknownScope } = byScope(declared, "organization");
  const findings: Finding[] = [];

  for (const [orgId, decls] of [...groups].sort(([a], [b]) => a - b)) {
    const admins = new Map<string, Declaration[]>();
    for (const d of decls) {
      if (!hasPerm(d.permissions, ORG_ADMIN)) continue;
      const key = personKey(d, emails);
      if (key === undefined) continue; // could be someone already counted
      pushTo(admins, key, d);
    }
    if (admins.size > max) {
      const who = [...admins].map(([key, ds]) => `${key} (${ds.map((d) => label(d.res)).join(", ")})`).join("; ");
      findings.push({
        urn: [...admins.values()].at(-1)![0]!.res.urn,
        message:
          `${scopeLabel("organization", orgId)} would have ${admins.size} org admins, more than the ${max} allowed (maxOrgAdmins): ${who}. ` +
          `Fix: take ORG_ADMIN from ${admins.size - max} of them (another organization permission may do), or raise maxOrgAdmins in the policy config.`,
      });
    }
  }

  if (min > 0) {
    const scopes = minimumScopes(declared, "organization", which);
    // A resource whose organization is not known yet may be the admin of any organization.
    const anywhere = unknownScope.some((d) => hasPerm(d.permissions, ORG_ADMIN) || mayHavePerm(d.permissions, ORG_ADMIN));
    const rosterUnknown = (orgId: number) =>
      declared.rosters.some((r) => r.scope === "organization" && (r.scopeId === orgId || isNotKnown(r.scopeId)) && isNotKnown(r.people));
    for (const orgId of scopes) {
      const decls = (groups.get(orgId) ?? []).filter((d) => !d.invitation);
      const granting = decls.filter((d) => hasPerm(d.permissions, ORG_ADMIN));
      const distinct = new Set(granting.map((d) => personKey(d, emails) ?? `unknown:${d.res.urn}`));
      if (distinct.size >= min) continue;
      if (
        anywhere ||
        rosterUnknown(orgId) ||
        decls.some(
          (d) => mayHavePerm(d.permissions, ORG_ADMIN) || (hasPerm(d.permissions, ORG_ADMIN) && personKey(d, emails) === undefined),
        )
      )
        continue;
      const owners = [
        ...new Set([
          ...declared.rosters.filter((r) => r.scope === "organization" && r.scopeId === orgId).map((r) => r.res),
          ...decls.map((d) => d.res),
        ]),
      ];
      const first = owners[0];
      const names = owners.map(label).join(", ");
      const unmanaged = decls.filter((d) => d.permissions === undefined).length;
      findings.push({
        urn: first?.urn,
        message:
          `${scopeLabel("organization", orgId)} would have ${distinct.size === 0 ? "no org admin" : `only ${distinct.size} org admin(s)`} among what the stack declares (${names}); at least ${min} required (minOrgAdmins).` +
          (unmanaged
            ? ` ${unmanaged} declared ${unmanaged === 1 ? "person has" : "people have"} unmanaged permissions, which do not count.`
            : "") +
          ` Fix: give ORG_ADMIN to ${min === 1 ? "someone" : `${min} people`} in ${first ? label(first) : "the program"}, or lower minOrgAdmins / set scope in the policy config.`,
      });
    }
  }
  return findings;
}
