/**
 * Policy external-access-expires (docs/policy.md, issue 26): access granted to people outside the
 * firm's own email domains ends, by an `expiresOn` no further than maxDays away.
 */
import { isNotKnown, isString, label, type Declaration, type Declared } from "../declarations";
import { domainOf, normDomain } from "./domains";
import { emailsByUserId, personLabel, scopeLabel, type Finding } from "./shared";

/** One external domain's terms. */
export interface ExternalDomainTerms {
  /** Longest a grant may run, in days from today (default: the rule's maxDays). */
  maxDays?: number;
  /** False: grants to this domain need no end date (default true). */
  required?: boolean;
}

/** The external-access-expires rule's config. */
export interface ExternalExpiryConfig {
  /** The firm's own email domains (`northwind.example`); empty: the rule is off. */
  firmDomains?: string[];
  /** Longest an external grant may run, in days from today (default 90). */
  maxDays?: number;
  /** Terms per external domain (`lawfirm.example`), overriding maxDays or making the end date optional. */
  domains?: Record<string, ExternalDomainTerms>;
  /** user id -> email, for database grants named by user id. */
  userEmails?: Record<string, string>;
}

/** The kinds whose grants take an `expiresOn` (the others cannot comply, so they are not judged). */
export const TAKES_END_DATE: ReadonlySet<string> = new Set([
  "OrgMember",
  "OrganizationMembers",
  "OrgMemberPermissions",
  "Invitation",
  "DatabaseUsers",
  "DatabaseUserPermissions",
]);

/** What the rule uses for a setting left out. */
export const EXTERNAL_EXPIRY_DEFAULTS = { maxDays: 90 } as const;
const DAY_MS = 86_400_000;

/** True when the config names firm domains, so the rule has something to judge. */
export function externalExpiryActive(cfg: ExternalExpiryConfig): boolean {
  return (cfg.firmDomains ?? []).some((d) => normDomain(d) !== "");
}

/** The email a declaration grants to, when known: its own, or its user id's (config, other resources' outputs). */
function emailOf(d: Declaration, emails: Map<number, string>): string | undefined {
  if (isString(d.email)) return d.email;
  return typeof d.userId === "number" ? emails.get(d.userId) : undefined;
}

/**
 * Rule: a grant (a member, an invitation, permissions in an organization or on a database) to a
 * person whose email domain is not one of firmDomains has an `expiresOn` at most maxDays (or
 * the domain's own maxDays) from `now`. A database grant named by a user id whose email is not
 * known (userEmails, or an OrgMember's outputs) is not judged; neither is a date not known yet.
 */
export function externalExpiryFindings(declared: Declared, cfg: ExternalExpiryConfig = {}, now: number = Date.now()): Finding[] {
  if (!externalExpiryActive(cfg)) return [];
  const firm = new Set((cfg.firmDomains ?? []).map(normDomain));
  const terms = new Map(Object.entries(cfg.domains ?? {}).map(([d, t]) => [normDomain(d), t]));
  const emails = emailsByUserId(declared, cfg.userEmails);
  const today = new Date(now).toISOString().slice(0, 10);
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (!TAKES_END_DATE.has(d.res.kind) || d.field === "userIdentifiers" || isNotKnown(d.scopeId) || isNotKnown(d.expiresOn)) continue;
    const email = emailOf(d, emails);
    if (!email || firm.has(domainOf(email))) continue;
    const domain = domainOf(email);
    const t = terms.get(domain) ?? {};
    if (t.required === false) continue;
    const maxDays = t.maxDays ?? cfg.maxDays ?? EXTERNAL_EXPIRY_DEFAULTS.maxDays;
    const latest = new Date(Date.parse(`${today}T00:00:00Z`) + maxDays * DAY_MS).toISOString().slice(0, 10);
    const who = `${label(d.res)} grants ${personLabel(d, emails)} access to ${scopeLabel(d.scope, d.scopeId)}`;
    const why = `people outside the firm's domains (${[...firm].sort().join(", ")}) get access for at most ${maxDays} days`;
    const fix = `Fix: set expiresOn to a day no later than ${latest}, or set terms for ${domain} in the policy config's domains.`;
    if (d.expiresOn === undefined) findings.push({ urn: d.res.urn, message: `${who} without an end date: ${why}. ${fix}` });
    else if (d.expiresOn > latest)
      findings.push({ urn: d.res.urn, message: `${who} until ${d.expiresOn}, more than ${maxDays} days from today: ${why}. ${fix}` });
  }
  return findings;
}
