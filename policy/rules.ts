/**
 * The access guardrails as pure functions: resource properties in, findings out. Nothing here
 * knows about the policy engine, so every rule is testable on plain objects; policies.ts wraps them
 * for `@pulumi/policy`.
 *
 * What the rules see. A resource's properties as the engine hands them to a policy: the checked
 * inputs (resource policies, and stack policies for resources created or updated in a preview) or
 * the outputs (stack policies after an `up`, and for unchanged resources in a preview). Both shapes
 * are read here (see {@link declarationsOf}). Values not known yet in a preview arrive as the
 * engine's unknown sentinels, as a throwing property access (`@pulumi/policy`'s proxy), or as a
 * missing required field: {@link toPlain} turns each into {@link UNKNOWN}, and a rule that meets
 * one never concludes a violation from it (it counts only what is known, or skips the check).
 */

/** Type token prefix of every resource of this package. */
export const TYPE_PREFIX = "pulumi-nodejs:dynamic/reviewadmin:";

export const ORGANIZATION_PERMISSIONS = ["ORG_ADMIN", "CLOUD_MANAGEMENT_ADMIN", "LEGAL_HOLD_ADMIN", "AI_ADMIN"] as const;
export const DATABASE_PERMISSIONS = ["DB_ADMIN", "DB_UPLOAD", "DB_DELETE", "DB_LEGAL_HOLD"] as const;

// ---------------------------------------------------------------------------------------------
// Unknown values

/** A value not known yet (preview). */
export const UNKNOWN: unique symbol = Symbol("unknown");
export type Unknown = typeof UNKNOWN;
export type Maybe<T> = T | Unknown;

export function isUnknown(v: unknown): v is Unknown {
  return v === UNKNOWN;
}

/**
 * The engine's unknown sentinels (`@pulumi/policy` proxy.js and `@pulumi/pulumi` runtime): the
 * engine sends the string one for any type; the others are listed for completeness.
 */
const UNKNOWN_SENTINELS = new Set([
  "04da6b54-80e4-46f7-96ec-b56ff0331ba9", // string (runtime.unknownValue)
  "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", // boolean
  "3eeb2bf0-c639-47a8-9e75-3b44932eb421", // number
  "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2", // array
  "030794c1-ac77-496b-92df-f27374a8bd58", // asset
  "e48ece36-62e2-4504-bad9-02848725956a", // archive
  "dd056dcd-154b-4c76-9bd3-c8f88648b5ff", // object
]);

function read(obj: unknown, key: string | number): unknown {
  try {
    return (obj as Record<string | number, unknown>)[key];
  } catch {
    // `@pulumi/policy` wraps props in a proxy that throws UnknownValueError on an unknown.
    return UNKNOWN;
  }
}

/**
 * A plain copy of resource properties with every unknown (sentinel string, throwing access)
 * replaced by {@link UNKNOWN}. Reads through `@pulumi/policy`'s unknown-checking proxy one
 * property at a time, so one unknown field does not hide the rest of the resource.
 */
export function toPlain(value: unknown): unknown {
  if (typeof value === "string" && UNKNOWN_SENTINELS.has(value)) return UNKNOWN;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const length = read(value, "length");
    if (typeof length !== "number") return UNKNOWN;
    return Array.from({ length }, (_, i) => toPlain(read(value, i)));
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toPlain(read(value, key));
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the stack declares

/** A resource of this package, its properties made plain by {@link toPlain}. */
export interface ResourceInfo {
  type: string;
  urn: string;
  name: string;
  props: Record<string, unknown>;
}

/** The resource kind of a type token (`OrgMember`), or undefined for other packages' types. */
export function kindOf(type: string): string | undefined {
  return type.startsWith(TYPE_PREFIX) ? type.slice(TYPE_PREFIX.length) : undefined;
}

/** Who a resource is: kind and name, for messages (`OrgMember "ada"`). */
export interface ResourceRef {
  urn: string;
  name: string;
  kind: string;
}

export function label(r: ResourceRef): string {
  return `${r.kind} "${r.name}"`;
}

/** Ownership levels, from the README's table. */
export type Level = "authoritative roster" | "additive roster" | "one person" | "one field";
/** The levels from the widest to the narrowest. */
const LEVELS: readonly Level[] = ["authoritative roster", "additive roster", "one person", "one field"];

/** Permissions a declaration sets: the known ones, and whether some are not known yet. */
export interface Perms {
  known: string[];
  partial: boolean;
}

/**
 * One person in one organization or database, as one resource declares them. `permissions`
 * undefined: the resource does not manage them; UNKNOWN: not known yet.
 */
export interface Declaration {
  res: ResourceRef;
  scope: "organization" | "database";
  scopeId: Maybe<number>;
  level: Level;
  /** Lower-cased email (organization scope); undefined when named by user id. */
  email?: Maybe<string>;
  /** User id: the key in database scope; in organization scope when named by id or known from outputs. */
  userId?: Maybe<number>;
  permissions?: Maybe<Perms>;
  /** Field-level resources: the one field they own. */
  field?: "permissions" | "userIdentifiers";
  /** An Invitation resource (a pending invitation, not a membership). */
  invitation?: boolean;
  /** From outputs: the person's or invitation's status, and the invitation's expiry. */
  status?: Maybe<string>;
  expiration?: Maybe<string | null>;
  resendWhenExpired?: Maybe<boolean>;
}

/** A roster: which scope it owns, in which mode, and whom it leaves alone. */
export interface Roster {
  res: ResourceRef;
  scope: "organization" | "database";
  scopeId: Maybe<number>;
  mode: Maybe<string>;
  /** Lower-cased emails / user ids (as strings) it declares; UNKNOWN if the map is not known. */
  people: Maybe<Set<string>>;
  /** protectedEmails (lower-cased) / protectedUserIds (as strings). */
  protectedPeople: Maybe<Set<string>>;
}

/** Everything the stack declares about access. */
export interface Declared {
  declarations: Declaration[];
  rosters: Roster[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v) && !isUnknown(v);

/** A required field: missing counts as not known (some engine paths drop unknowns). */
function required<T>(v: unknown, ok: (x: unknown) => x is T): Maybe<T> {
  return ok(v) ? v : UNKNOWN;
}
const isNumber = (v: unknown): v is number => typeof v === "number";
const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";

function emailOf(v: unknown): Maybe<string> {
  return isString(v) ? v.trim().toLowerCase() : UNKNOWN;
}

/** Optional field: undefined stays undefined (not managed / not given). */
function optional<T>(v: unknown, f: (x: unknown) => Maybe<T>): Maybe<T> | undefined {
  return v === undefined || v === null ? undefined : f(v);
}

function permsOf(v: unknown): Maybe<Perms> {
  if (!Array.isArray(v)) return UNKNOWN;
  return { known: v.filter(isString), partial: v.some((p) => !isString(p)) };
}

/** Either `email` or `userId` names the member (OrgMemberPermissions, UserIdentifiers). */
function memberRef(props: Record<string, unknown>): Pick<Declaration, "email" | "userId"> {
  if (props.email !== undefined && props.email !== null) return { email: emailOf(props.email) };
  if (props.userId !== undefined && props.userId !== null) return { userId: required(props.userId, isNumber) };
  return { email: UNKNOWN };
}

function setOf(v: unknown, key: (x: unknown) => string | undefined): Maybe<Set<string>> {
  if (v === undefined || v === null) return new Set();
  if (!Array.isArray(v)) return UNKNOWN;
  const out = new Set<string>();
  for (const x of v) {
    const k = key(x);
    if (k === undefined) return UNKNOWN;
    out.add(k);
  }
  return out;
}

/**
 * What one resource declares. Reads both shapes the engine hands a policy:
 * - checked inputs: roster maps hold the declared entries (`members[email] = {permissions?...}`,
 *   `users[id] = [permissions]`); a left-out `permissions` is not managed;
 * - outputs: roster maps hold live entries (with `status` / `active`), the declared ones are those
 *   listed in `managed` / `managedUserIds`; an OrgMember manages the fields listed in `managed`.
 */
export function declarationsOf(r: ResourceInfo): Declared {
  const kind = kindOf(r.type);
  const out: Declared = { declarations: [], rosters: [] };
  if (!kind) return out;
  const res: ResourceRef = { urn: r.urn, name: r.name, kind };
  const p = r.props;
  const org = () => required(p.organizationId, isNumber);
  const db = () => required(p.databaseId, isNumber);

  switch (kind) {
    case "OrgMember": {
      const managed = p.managed;
      let permissions: Maybe<Perms> | undefined;
      if (Array.isArray(managed)) permissions = managed.includes("permissions") ? permsOf(p.permissions) : undefined;
      else permissions = optional(p.permissions, permsOf);
      out.declarations.push({
        res,
        scope: "organization",
        scopeId: org(),
        level: "one person",
        email: emailOf(p.email),
        userId: optional(p.userId, (v) => required(v, isNumber)),
        permissions,
        status: optional(p.status, (v) => required(v, isString)),
        expiration: optional(p.invitationExpiration, (v) => required(v, isString)),
        resendWhenExpired: optional(p.resendWhenExpired, (v) => required(v, isBoolean)),
      });
      break;
    }
    case "Invitation":
      out.declarations.push({
        res,
        scope: "organization",
        scopeId: org(),
        level: "one person",
        invitation: true,
        email: emailOf(p.email),
        userId: optional(p.userId, (v) => required(v, isNumber)),
        // An invitation without permissions invites a plain member.
        permissions: optional(p.permissions, permsOf) ?? { known: [], partial: false },
        status: optional(p.status, (v) => required(v, isString)),
        expiration: optional(p.expiration, (v) => required(v, isString)),
        resendWhenExpired: optional(p.resendWhenExpired, (v) => required(v, isBoolean)),
      });
      break;
    case "OrgMemberPermissions":
      out.declarations.push({
        res,
        scope: "organization",
        scopeId: org(),
        level: "one field",
        field: "permissions",
        ...memberRef(p),
        permissions: permsOf(p.permissions),
      });
      break;
    case "UserIdentifiers":
      out.declarations.push({ res, scope: "organization", scopeId: org(), level: "one field", field: "userIdentifiers", ...memberRef(p) });
      break;
    case "DatabaseUserPermissions":
      out.declarations.push({
        res,
        scope: "database",
        scopeId: db(),
        level: "one person",
        userId: required(p.userId, isNumber),
        permissions: permsOf(p.permissions),
      });
      break;
    case "OrganizationMembers":
    case "DatabaseUsers": {
      const isOrg = kind === "OrganizationMembers";
      const scope = isOrg ? "organization" : "database";
      const scopeId = isOrg ? org() : db();
      const mode = required(p.mode, isString);
      const level: Level = mode === "additive" ? "additive roster" : "authoritative roster";
      const map = isOrg ? p.members : p.users;
      const roster: Roster = {
        res,
        scope,
        scopeId,
        mode,
        people: isObject(map) ? new Set() : UNKNOWN,
        protectedPeople: isOrg
          ? setOf(p.protectedEmails, (x) => (isString(x) ? x.trim().toLowerCase() : undefined))
          : setOf(p.protectedUserIds, (x) => (isNumber(x) ? String(x) : undefined)),
      };
      out.rosters.push(roster);
      if (!isObject(map)) break;
      // Outputs name the declared people apart from the live ones.
      const managed = isOrg ? p.managed : p.managedUserIds;
      for (const [key, value] of Object.entries(map)) {
        const person = isOrg ? key.trim().toLowerCase() : key;
        let permissions: Maybe<Perms> | undefined;
        let userId: Maybe<number> | undefined;
        let status: Maybe<string> | undefined;
        if (isOrg) {
          if (isObject(value) && "status" in value) {
            // Live entry (outputs): declared only if listed in `managed`.
            const fields = isObject(managed) ? (managed[person] ?? managed[key]) : undefined;
            if (isObject(managed) && fields === undefined) continue;
            permissions = Array.isArray(fields) && fields.includes("permissions") ? permsOf(value.permissions) : undefined;
            userId = isNumber(value.userId) ? value.userId : undefined;
            status = isString(value.status) ? value.status : undefined;
          } else if (isObject(value)) permissions = optional(value.permissions, permsOf);
          else permissions = UNKNOWN;
        } else {
          if (Array.isArray(value) || isUnknown(value)) permissions = permsOf(value);
          else if (isObject(value)) {
            if (Array.isArray(managed) && !managed.some((m) => String(m) === key)) continue;
            permissions = permsOf(value.permissions);
          } else permissions = UNKNOWN;
        }
        if (roster.people !== UNKNOWN) roster.people.add(person);
        out.declarations.push(
          isOrg
            ? { res, scope, scopeId, level, email: person, userId, permissions, status }
            : { res, scope, scopeId, level, userId: /^\d+$/.test(key) ? Number(key) : UNKNOWN, permissions },
        );
      }
      break;
    }
  }
  return out;
}

/** Everything a list of resources declares (other packages' resources are ignored). */
export function declaredBy(resources: ResourceInfo[]): Declared {
  const out: Declared = { declarations: [], rosters: [] };
  for (const r of resources) {
    const d = declarationsOf(r);
    out.declarations.push(...d.declarations);
    out.rosters.push(...d.rosters);
  }
  return out;
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
function personLabel(d: Declaration, emails: Map<number, string>): string {
  if (isString(d.email)) return d.email;
  if (isNumber(d.userId)) {
    const email = emails.get(d.userId);
    return email ? `user ${d.userId} (${email})` : `user ${d.userId}`;
  }
  return "someone not known yet";
}

function scopeLabel(scope: "organization" | "database", id: number): string {
  return `${scope} ${id}`;
}

const hasPerm = (p: Maybe<Perms> | undefined, perm: string) => p !== undefined && !isUnknown(p) && p.known.includes(perm);
/** Could hold `perm` once unknowns resolve (but does not visibly). */
const mayHavePerm = (p: Maybe<Perms> | undefined, perm: string) =>
  isUnknown(p) || (p !== undefined && !p.known.includes(perm) && p.partial);

// ---------------------------------------------------------------------------------------------
// Findings and config

/** One violation: the resource it is about (a URN, or none for the stack) and the message. */
export interface Finding {
  urn?: string;
  message: string;
}

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

const normDomain = (d: string) => d.trim().toLowerCase().replace(/^@/, "");
const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

function domainRules(cfg: DomainConfig) {
  const allowed = new Set((cfg.allowedDomains ?? []).map(normDomain).filter(Boolean));
  const external = (cfg.externalReviewers ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean);
  return {
    active: allowed.size > 0,
    allowedList: [...allowed].sort().join(", "),
    isAllowed: (email: string) => allowed.has(domainOf(email)),
    isExternalReviewer: (email: string) =>
      external.some((e) => (e.includes("@") && !e.startsWith("@") ? e === email : normDomain(e) === domainOf(email))),
    externalPermissions: new Set((cfg.externalReviewerPermissions ?? []).filter((p) => p !== "ORG_ADMIN")),
  };
}

/** True if the domain rules have something to check (allowedDomains is set). */
export function domainRulesActive(cfg: DomainConfig): boolean {
  return domainRules(cfg).active;
}

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
    if (d.scope !== "organization" || d.permissions === undefined || isUnknown(d.permissions) || d.permissions.known.length === 0) continue;
    if (isUnknown(d.scopeId)) continue;
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
          `Fix: remove ${denied.join(", ")} from ${key}${denied.includes("ORG_ADMIN") ? "" : ", or allow it in externalReviewerPermissions"}.`,
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
    if (d.scope !== "organization" || d.level === "one field" || !isString(d.email) || isUnknown(d.scopeId)) continue;
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

export interface AdminCountConfig {
  /** At most this many distinct org admins per organization (default 3). */
  maxOrgAdmins?: number;
  /** At least this many org admins (default 1; 0 turns the minimum off). */
  minOrgAdmins?: number;
  /** Where the minimum applies: "authoritative" (default) or "declared". */
  scope?: "authoritative" | "declared";
  userEmails?: Record<string, string>;
}

export const ADMIN_DEFAULTS = { maxOrgAdmins: 3, minOrgAdmins: 1, scope: "authoritative" } as const;

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Groups declarations by known scope id; also returns those whose scope id is not known yet. */
function byScope(declared: Declared, scope: "organization" | "database") {
  const groups = new Map<number, Declaration[]>();
  const unknownScope: Declaration[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== scope) continue;
    if (isUnknown(d.scopeId)) unknownScope.push(d);
    else pushTo(groups, d.scopeId, d);
  }
  return { groups, unknownScope };
}

/**
 * Scopes where a minimum rule applies: those of an authoritative roster ("authoritative": the
 * stack owns them whole, so what it declares is what will be there), or every scope the stack
 * grants permissions in ("declared"; invitations and identifiers grant none).
 */
function minimumScopes(declared: Declared, scope: "organization" | "database", which: "authoritative" | "declared"): number[] {
  const ids = new Set<number>();
  for (const r of declared.rosters) {
    // A mode or an id not known yet: not judged.
    if (r.scope === scope && !isUnknown(r.scopeId) && (which === "declared" || r.mode === "authoritative")) ids.add(r.scopeId);
  }
  if (which === "declared") {
    for (const d of declared.declarations) {
      if (d.scope === scope && !isUnknown(d.scopeId) && !d.invitation && d.field !== "userIdentifiers") ids.add(d.scopeId);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

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
      if (!hasPerm(d.permissions, "ORG_ADMIN")) continue;
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
    const anywhere = unknownScope.some((d) => hasPerm(d.permissions, "ORG_ADMIN") || mayHavePerm(d.permissions, "ORG_ADMIN"));
    const rosterUnknown = (orgId: number) =>
      declared.rosters.some((r) => r.scope === "organization" && (r.scopeId === orgId || isUnknown(r.scopeId)) && isUnknown(r.people));
    for (const orgId of scopes) {
      const decls = (groups.get(orgId) ?? []).filter((d) => !d.invitation);
      const granting = decls.filter((d) => hasPerm(d.permissions, "ORG_ADMIN"));
      const distinct = new Set(granting.map((d) => personKey(d, emails) ?? `unknown:${d.res.urn}`));
      if (distinct.size >= min) continue;
      if (
        anywhere ||
        rosterUnknown(orgId) ||
        decls.some(
          (d) => mayHavePerm(d.permissions, "ORG_ADMIN") || (hasPerm(d.permissions, "ORG_ADMIN") && personKey(d, emails) === undefined),
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
  const anywhere = unknownScope.some((d) => hasPerm(d.permissions, "DB_ADMIN") || mayHavePerm(d.permissions, "DB_ADMIN"));
  const findings: Finding[] = [];
  if (anywhere) return findings;
  for (const dbId of scopes) {
    const decls = groups.get(dbId) ?? [];
    if (decls.some((d) => hasPerm(d.permissions, "DB_ADMIN"))) continue;
    if (decls.some((d) => mayHavePerm(d.permissions, "DB_ADMIN"))) continue;
    const rosters = declared.rosters.filter((r) => r.scope === "database" && (r.scopeId === dbId || isUnknown(r.scopeId)));
    if (rosters.some((r) => isUnknown(r.people))) continue;
    const owners = [...new Set([...rosters.filter((r) => r.scopeId === dbId).map((r) => r.res), ...decls.map((d) => d.res)])];
    const first = owners[0];
    const users = decls.map(
      (d) =>
        `${isNumber(d.userId) ? `user ${d.userId}` : "a user not known yet"} ${isUnknown(d.permissions) ? "?" : d.permissions!.known.join("+")}`,
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
        if (r.scope !== scope || r.scopeId !== id || r.mode !== "authoritative" || isUnknown(r.people) || isUnknown(r.protectedPeople))
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

export interface InvitationExpiryConfig {
  /** Days until the next scheduled run (default 7). */
  horizonDays?: number;
  /** How long an invitation is valid once sent (default 14, the service's). */
  invitationLifetimeDays?: number;
}

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
    if (isUnknown(d.status) || isUnknown(d.expiration) || isUnknown(d.resendWhenExpired) || !isString(d.email)) continue;
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
