/**
 * What the rules share: the finding they report, who a person is across resources, and the
 * grouping of declarations by organization or database.
 */
import type { ScopeKind } from "../../contract/grants";
import type { DatabasePermission, OrganizationPermission } from "../../contract/types";
import { isNotKnown, isNumber, isString, type Declaration, type Declared, type Maybe, type Perms } from "../declarations";

/** A permission a rule looks for, spelled as the contract spells it. */
export type Permission = OrganizationPermission | DatabasePermission;

/** One violation: the resource it is about (a URN, or none for the stack) and the message. */
export interface Finding {
  urn?: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// People

/** user id -> email, from the config and from outputs that know both (OrgMember, roster entries, Invitation). */
export function emailsByUserId(declared: Declared, configured: Record<string, string> = {}): Map<number, string> {
  const out = new Map<number, string>();
  for (const [id, email] of Object.entries(configured))
    if (/^\d+$/.test(id) && typeof email === "string") out.set(Number(id), email.trim().toLowerCase());
  for (const d of declared.declarations) {
    if (d.scope === "organization" && isNumber(d.userId) && isString(d.email) && !out.has(d.userId)) out.set(d.userId, d.email);
  }
  return out;
}

/**
 * The key that identifies a person across resources: the email (organization scope; a user id
 * mapped to its email when known), else `user <id>`; undefined when not known yet.
 * Not the grant model's claim keys (sameClaim): the key is the name messages print, and it joins
 * a user id to the email userEmails maps it to, which claim keys cannot know.
 */
export function personKey(d: Declaration, emails: Map<number, string>): string | undefined {
  if (d.scope === "organization") {
    if (isString(d.email)) return d.email;
    if (d.email !== undefined) return undefined;
  }
  if (!isNumber(d.userId)) return undefined;
  if (d.scope === "organization") return emails.get(d.userId) ?? `user ${d.userId}`;
  return `user ${d.userId}`;
}

/** How a person reads in a message: `ada@x`, `user 1003`, `user 1003 (alan@x)`. */
export function personLabel(d: Declaration, emails: Map<number, string>): string {
  if (isString(d.email)) return d.email;
  if (isNumber(d.userId)) {
    const email = emails.get(d.userId);
    return email ? `user ${d.userId} (${email})` : `user ${d.userId}`;
  }
  return "someone not known yet";
}

/** A scope as messages name it: `organization 102`, `database 2001`. */
export function scopeLabel(scope: ScopeKind, id: number): string {
  return `${scope} ${id}`;
}

/** Visibly holds `perm`. */
export const hasPerm = (p: Maybe<Perms> | undefined, perm: Permission) => p !== undefined && !isNotKnown(p) && p.known.includes(perm);
/** Could hold `perm` once unknowns resolve (but does not visibly). */
export const mayHavePerm = (p: Maybe<Perms> | undefined, perm: Permission) =>
  isNotKnown(p) || (p !== undefined && !p.known.includes(perm) && p.partial);

// ---------------------------------------------------------------------------------------------
// Scopes

/** Appends `value` to the list at `key`. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Groups declarations by known scope id; also returns those whose scope id is not known yet. */
export function byScope(declared: Declared, scope: ScopeKind) {
  const groups = new Map<number, Declaration[]>();
  const unknownScope: Declaration[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== scope) continue;
    if (isNotKnown(d.scopeId)) unknownScope.push(d);
    else pushTo(groups, d.scopeId, d);
  }
  return { groups, unknownScope };
}

/**
 * Scopes where a minimum rule applies: those of an authoritative roster ("authoritative": the
 * stack owns them whole, so what it declares is what will be there), or every scope the stack
 * grants permissions in ("declared"; invitations and identifiers grant none).
 */
export function minimumScopes(declared: Declared, scope: ScopeKind, which: "authoritative" | "declared"): number[] {
  const ids = new Set<number>();
  for (const r of declared.rosters) {
    // A mode or an id not known yet: not judged.
    if (r.scope === scope && !isNotKnown(r.scopeId) && (which === "declared" || r.mode === "authoritative")) ids.add(r.scopeId);
  }
  if (which === "declared") {
    for (const d of declared.declarations) {
      if (d.scope === scope && !isNotKnown(d.scopeId) && !d.invitation && d.field !== "userIdentifiers") ids.add(d.scopeId);
    }
  }
  return [...ids].sort((a, b) => a - b);
}
