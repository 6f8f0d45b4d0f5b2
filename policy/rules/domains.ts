/**
 * The config of the two email-domain rules (orgPermissionDomains.ts, memberDomains.ts) and what
 * both ask of it.
 */
import { ORG_ADMIN } from "../../contract/grants";

/** The email-domain rules' config. */
export interface DomainConfig {
  /** Allowed email domains (`northwind.example`); empty: the rule is off. */
  allowedDomains?: string[];
  /** Emails or domains (`jane@lawfirm.example`, `lawfirm.example`, `@lawfirm.example`) of external reviewers. */
  externalReviewers?: string[];
  /** Organization permissions an external reviewer may hold (never ORG_ADMIN); default none. */
  externalReviewerPermissions?: string[];
  /** user id -> email, for members named by user id. */
  userEmails?: Record<string, string>;
}

/** A domain as compared: trimmed, lower-cased, without a leading `@`. */
export const normDomain = (d: string) => d.trim().toLowerCase().replace(/^@/, "");
/** The domain of an email. */
export const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

/** The config made ready to ask: is an email allowed, or an external reviewer, and what may they hold. */
export function domainRules(cfg: DomainConfig) {
  const allowed = new Set((cfg.allowedDomains ?? []).map(normDomain).filter(Boolean));
  const external = (cfg.externalReviewers ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean);
  return {
    active: allowed.size > 0,
    allowedList: [...allowed].sort().join(", "),
    isAllowed: (email: string) => allowed.has(domainOf(email)),
    isExternalReviewer: (email: string) =>
      external.some((e) => (e.includes("@") && !e.startsWith("@") ? e === email : normDomain(e) === domainOf(email))),
    externalPermissions: new Set((cfg.externalReviewerPermissions ?? []).filter((p) => p !== ORG_ADMIN)),
  };
}

/** True if the domain rules have something to check (allowedDomains is set). */
export function domainRulesActive(cfg: DomainConfig): boolean {
  return domainRules(cfg).active;
}
