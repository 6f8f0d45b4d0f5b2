/**
 * Policy members-allowed-domains (docs/policy.md): people outside the allowed email domains are
 * neither added nor invited, unless they are external reviewers.
 */
import { isNotKnown, isString, label, type Declared } from "../declarations";
import { domainOf, domainRules, type DomainConfig } from "./domains";
import { scopeLabel, type Finding } from "./shared";

/**
 * Rule: people outside the allowed domains are neither added to an organization nor invited,
 * unless they are external reviewers. Applies to OrgMember, roster entries and Invitation (each
 * of which invites the person if they have no account yet); field-level resources add nobody.
 */
export function memberDomainFindings(declared: Declared, cfg: DomainConfig): Finding[] {
  const rules = domainRules(cfg);
  if (!rules.active) return [];
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== "organization" || d.level === "one field" || !isString(d.email) || isNotKnown(d.scopeId)) continue;
    if (rules.isAllowed(d.email) || rules.isExternalReviewer(d.email)) continue;
    const what = d.invitation ? "invites" : "adds (or, without an account, invites)";
    findings.push({
      urn: d.res.urn,
      message:
        `${label(d.res)} ${what} ${d.email} to ${scopeLabel("organization", d.scopeId)}, but only people of the allowed domains (${rules.allowedList}) and listed external reviewers may join. ` +
        `Fix: remove ${d.email} from the program, or list them (or ${domainOf(d.email)}) in externalReviewers in the policy config.`,
    });
  }
  return findings;
}
