/**
 * Policy org-permissions-allowed-domains (docs/policy.md): organization permissions only for
 * people of the allowed email domains.
 */
import { isNotKnown, label, type Declared } from "../declarations";
import { domainOf, domainRules, type DomainConfig } from "./domains";
import { ORG_ADMIN } from "../../contract/grants";
import { emailsByUserId, personKey, personLabel, scopeLabel, type Finding } from "./shared";

/**
 * Rule: organization permissions (ORG_ADMIN and the others) only for people of the allowed
 * domains; external reviewers may hold only `externalReviewerPermissions` (never ORG_ADMIN).
 * A member named by user id is checked through `userEmails`, and reported when not mapped.
 */
export function orgPermissionDomainFindings(declared: Declared, cfg: DomainConfig): Finding[] {
  const rules = domainRules(cfg);
  if (!rules.active) return [];
  const emails = emailsByUserId(declared, cfg.userEmails);
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== "organization" || d.permissions === undefined || isNotKnown(d.permissions) || d.permissions.known.length === 0)
      continue;
    if (isNotKnown(d.scopeId)) continue;
    const where = scopeLabel("organization", d.scopeId);
    const perms = d.permissions.known;
    const key = personKey(d, emails);
    if (key === undefined) continue; // not known yet
    if (!key.includes("@")) {
      findings.push({
        urn: d.res.urn,
        message:
          `${label(d.res)}: ${personLabel(d, emails)} would hold ${perms.join(", ")} in ${where}, but the policy cannot tell the email domain of a member named by user id. ` +
          `Fix: name the member by email, or map the user id to an email in this policy's userEmails config.`,
      });
      continue;
    }
    if (rules.isAllowed(key)) continue;
    if (rules.isExternalReviewer(key)) {
      const denied = perms.filter((p) => !rules.externalPermissions.has(p));
      if (denied.length === 0) continue;
      const may = [...rules.externalPermissions].sort().join(", ") || "no organization permission";
      findings.push({
        urn: d.res.urn,
        message:
          `${label(d.res)}: ${personLabel(d, emails)} is an external reviewer and would hold ${denied.join(", ")} in ${where}; external reviewers may hold ${may}. ` +
          `Fix: remove ${denied.join(", ")} from ${key}${denied.includes(ORG_ADMIN) ? "" : ", or allow it in externalReviewerPermissions"}.`,
      });
      continue;
    }
    findings.push({
      urn: d.res.urn,
      message:
        `${label(d.res)}: ${key} would hold ${perms.join(", ")} in ${where}, but organization permissions are only for people of the allowed domains (${rules.allowedList}). ` +
        `Fix: remove the permissions from ${key}, or add ${domainOf(key)} to allowedDomains in the policy config.`,
    });
  }
  return findings;
}
