/**
 * Policy invitation-expiry-horizon (docs/policy.md, advisory): invitations outlive the next
 * scheduled run.
 */
import { isNotKnown, isNumber, isString, label, type Declared } from "../declarations";
import type { Finding } from "./shared";

/** The invitation-expiry-horizon rule's config. */
export interface InvitationExpiryConfig {
  /** Days until the next scheduled run (default 7). */
  horizonDays?: number;
  /** How long an invitation is valid once sent (default 14, the service's). */
  invitationLifetimeDays?: number;
}

/** What the invitation-expiry-horizon rule uses for a setting left out. */
export const EXPIRY_DEFAULTS = { horizonDays: 7, invitationLifetimeDays: 14 } as const;
const DAY_MS = 86_400_000;

/**
 * Rule (advisory): an invitation that would expire before the next scheduled run. Pending ones
 * expire at their `expiration` (outputs); one sent or re-sent by this run expires a lifetime from
 * now; an expired one with resendWhenExpired false stays expired. OrgMember resources are checked
 * when their outputs say "invited"/"expired" (a new OrgMember may not need an invitation at all).
 */
export function invitationExpiryFindings(declared: Declared, cfg: InvitationExpiryConfig = {}, now: number = Date.now()): Finding[] {
  const horizonDays = cfg.horizonDays ?? EXPIRY_DEFAULTS.horizonDays;
  const lifetimeDays = cfg.invitationLifetimeDays ?? EXPIRY_DEFAULTS.invitationLifetimeDays;
  const nextRun = now + horizonDays * DAY_MS;
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== "organization" || (d.res.kind !== "Invitation" && d.res.kind !== "OrgMember")) continue;
    if (isNotKnown(d.status) || isNotKnown(d.expiration) || isNotKnown(d.resendWhenExpired) || !isString(d.email)) continue;
    const who = `${label(d.res)}: the invitation of ${d.email}${isNumber(d.scopeId) ? ` to organization ${d.scopeId}` : ""}`;
    let expiresAt: number;
    let what: string;
    const status = d.status;
    if (status === undefined) {
      if (!d.invitation) continue;
      expiresAt = now + lifetimeDays * DAY_MS;
      what = `sent by this run, expires in ${lifetimeDays} days`;
    } else if (status === "pending" || status === "invited") {
      if (!isString(d.expiration)) continue;
      expiresAt = Date.parse(d.expiration);
      if (Number.isNaN(expiresAt)) continue;
      what = `expires on ${d.expiration.slice(0, 10)} (in ${Math.max(0, Math.round((expiresAt - now) / DAY_MS))} days)`;
    } else if (status === "expired") {
      if (d.resendWhenExpired === false) {
        findings.push({
          urn: d.res.urn,
          message: `${who} has expired and will not be re-sent (resendWhenExpired: false). Fix: set resendWhenExpired to true or change resendTrigger to re-send it, or remove the resource.`,
        });
        continue;
      }
      expiresAt = now + lifetimeDays * DAY_MS;
      what = `is re-sent by this run and expires in ${lifetimeDays} days`;
    } else continue; // accepted / active
    if (expiresAt >= nextRun) continue;
    findings.push({
      urn: d.res.urn,
      message:
        `${who} ${what}, before the next scheduled run (in ${horizonDays} days, horizonDays): the person may not be able to accept it. ` +
        (lifetimeDays <= horizonDays
          ? `Fix: run the stack at least every ${lifetimeDays} days, or lower horizonDays to the real schedule.`
          : `Fix: ask ${d.email} to accept before then, or change resendTrigger${d.invitation ? "" : " (on an Invitation)"} to re-send it now for a fresh ${lifetimeDays} days.`),
    });
  }
  return findings;
}
