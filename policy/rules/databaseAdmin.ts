/**
 * Policy database-admin-present (docs/policy.md): every database keeps a DB_ADMIN.
 */
import { isNotKnown, isNumber, label, type Declared } from "../declarations";
import { DB_ADMIN } from "../../contract/grants";
import { byScope, hasPerm, mayHavePerm, minimumScopes, scopeLabel, type Finding } from "./shared";

/** The database-admin-present rule's config. */
export interface DatabaseAdminConfig {
  /** Where the rule applies: "authoritative" (default) or "declared". */
  scope?: "authoritative" | "declared";
}

/**
 * Rule: every database keeps at least one DB_ADMIN among what the stack declares: the databases
 * the stack owns whole (an authoritative DatabaseUsers roster, default) or every database it
 * grants permissions on ("declared"). Users are counted by user id.
 */
export function databaseAdminFindings(declared: Declared, cfg: DatabaseAdminConfig = {}): Finding[] {
  const which = cfg.scope ?? "authoritative";
  const { groups, unknownScope } = byScope(declared, "database");
  const scopes = minimumScopes(declared, "database", which);
  const anywhere = unknownScope.some((d) => hasPerm(d.permissions, DB_ADMIN) || mayHavePerm(d.permissions, DB_ADMIN));
  const findings: Finding[] = [];
  if (anywhere) return findings;
  for (const dbId of scopes) {
    const decls = groups.get(dbId) ?? [];
    if (decls.some((d) => hasPerm(d.permissions, DB_ADMIN))) continue;
    if (decls.some((d) => mayHavePerm(d.permissions, DB_ADMIN))) continue;
    const rosters = declared.rosters.filter((r) => r.scope === "database" && (r.scopeId === dbId || isNotKnown(r.scopeId)));
    if (rosters.some((r) => isNotKnown(r.people))) continue;
    const owners = [...new Set([...rosters.filter((r) => r.scopeId === dbId).map((r) => r.res), ...decls.map((d) => d.res)])];
    const first = owners[0];
    const users = decls.map(
      (d) =>
        `${isNumber(d.userId) ? `user ${d.userId}` : "a user not known yet"} ${isNotKnown(d.permissions) ? "?" : d.permissions!.known.join("+")}`,
    );
    findings.push({
      urn: first?.urn,
      message:
        `${scopeLabel("database", dbId)} would have no DB_ADMIN among what the stack declares (${owners.map(label).join(", ")}: ${users.join(", ") || "no user"}). ` +
        `Fix: grant DB_ADMIN to at least one user in ${first ? label(first) : "the program"} (or protect an admin's user id in protectedUserIds and grant it there).`,
    });
  }
  return findings;
}
