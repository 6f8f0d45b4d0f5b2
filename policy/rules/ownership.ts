/**
 * Policy single-ownership-level (docs/policy.md): no person managed at two ownership levels.
 */
import { isNotKnown, label, LEVELS, type Declaration, type Declared } from "../declarations";
import { byScope, emailsByUserId, personKey, pushTo, scopeLabel, type Finding } from "./shared";

/** The single-ownership-level rule's config. */
export interface OwnershipConfig {
  userEmails?: Record<string, string>;
}

/**
 * Rule: no person managed at two ownership levels (or twice at one): each person of an
 * organization or database is declared by one resource, except field-level resources for
 * different fields; and an authoritative roster, which removes everyone it does not list or
 * protect, shares its organization or database with no resource naming someone else.
 */
export function ownershipFindings(declared: Declared, cfg: OwnershipConfig = {}): Finding[] {
  const emails = emailsByUserId(declared, cfg.userEmails);
  const findings: Finding[] = [];
  for (const scope of ["organization", "database"] as const) {
    const { groups } = byScope(declared, scope);
    for (const [id, decls] of [...groups].sort(([a], [b]) => a - b)) {
      const where = scopeLabel(scope, id);
      // Same person, several resources.
      const byPerson = new Map<string, Declaration[]>();
      for (const d of decls) {
        const key = personKey(d, emails);
        if (key !== undefined) pushTo(byPerson, key, d);
      }
      for (const [key, ds] of byPerson) {
        // Widest ownership first, then by URN: the finding (on the last) does not depend on the
        // order the engine registered the resources in.
        const resources = [...new Map(ds.map((d) => [d.res.urn, d])).values()].sort(
          (a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) || a.res.urn.localeCompare(b.res.urn),
        );
        if (resources.length < 2) continue;
        const fields = resources.map((d) => d.field);
        if (fields.every((f) => f !== undefined) && new Set(fields).size === fields.length) continue; // disjoint fields
        const list = resources.map((d) => `${label(d.res)} (${d.level}${d.field ? `: ${d.field}` : ""})`).join(" and ");
        findings.push({
          urn: resources.at(-1)!.res.urn,
          message:
            `${key} in ${where} is managed by ${list}: resources at two ownership levels (or twice at one) undo each other's changes on every run. ` +
            `Fix: keep ${key} in one of them and remove them from the other${resources.some((d) => d.level === "authoritative roster") ? " (or list them in the roster's protected " + (scope === "organization" ? "emails" : "user ids") + " to manage them elsewhere)" : ""}.`,
        });
      }
      // An authoritative roster removes the people other resources declare.
      for (const r of declared.rosters) {
        if (r.scope !== scope || r.scopeId !== id || r.mode !== "authoritative" || isNotKnown(r.people) || isNotKnown(r.protectedPeople))
          continue;
        const people = r.people;
        const protectedPeople = r.protectedPeople;
        const reported = new Set<string>();
        for (const d of decls) {
          if (d.res.urn === r.res.urn) continue;
          const key = personKey(d, emails);
          if (key === undefined || reported.has(`${d.res.urn} ${key}`)) continue;
          const rosterKey = scope === "organization" ? key : String(d.userId);
          if (people.has(rosterKey) || protectedPeople.has(rosterKey)) continue;
          if (scope === "organization" && !key.includes("@")) continue; // a user id the roster's emails cannot be matched with
          reported.add(`${d.res.urn} ${key}`);
          findings.push({
            urn: d.res.urn,
            message:
              `${key} in ${where} is declared by ${label(d.res)} (${d.level}), but ${label(r.res)} owns the whole of ${where} (authoritative) and removes everyone it does not list or protect: the two undo each other on every run. ` +
              `Fix: move ${key} into ${label(r.res)}, or list them in its protected${scope === "organization" ? "Emails" : "UserIds"} to manage them with ${label(d.res)}.`,
          });
        }
      }
    }
  }
  return findings;
}
