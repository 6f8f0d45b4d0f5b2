/**
 * What the stack declares about access, read from resource properties: the one module of the
 * policy pack that knows how the engine hands properties to a policy. The rules (rules/*.ts) see
 * only the plain model made here, so each is testable on plain objects; policies.ts wraps them
 * for `@pulumi/policy`.
 *
 * What is read. A resource's properties as the engine hands them to a policy: the checked inputs
 * (resource policies, and stack policies for resources created or updated in a preview) or the
 * outputs (stack policies after an `up`, and for unchanged resources in a preview). Both shapes
 * are read here (see {@link declarationsOf}). Values not known yet in a preview arrive as the
 * engine's unknown sentinel (the SDK's `unknownValue`), as a throwing property access
 * (`@pulumi/policy`'s proxy, which throws for each of its typed sentinels), or as a missing
 * required field: {@link toPlain} turns each into {@link NOT_KNOWN}, and a rule that meets one
 * never concludes a violation from it (it counts only what is known, or skips the check).
 */
// The rpc module alone: the runtime index loads the whole SDK (about a second at every CLI start).
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { unpackProps } from "../contract/packed";
import type { Grant, ScopeKind, WallException, WallRule } from "../contract/grants";

/**
 * Type token prefix of every resource of this package. The pack may import only the contract,
 * not the provider, so the provider's module name is written here; test/policy/rules.test.ts pins
 * it to the provider's `MODULE`.
 */
export const TYPE_PREFIX = "pulumi-nodejs:dynamic/reviewadmin:";

/** Type token prefix of the same resources under the plugin face (`reviewadmin:index:OrgMember`). */
export const PLUGIN_TYPE_PREFIX = "reviewadmin:index:";

/** The resource kind of a type token of either face (`OrgMember`), or undefined for other packages' types. */
export function kindOf(type: string): string | undefined {
  for (const prefix of [TYPE_PREFIX, PLUGIN_TYPE_PREFIX]) if (type.startsWith(prefix)) return type.slice(prefix.length);
  return undefined;
}

/**
 * Every resource kind of the provider, and whether it declares access: {@link declarationsOf}
 * reads each "access" kind and must handle every kind listed (the compiler checks its switch).
 * The pack may not import the provider, so the list is written here; test/policy/rules.test.ts
 * fails when the provider registers a kind (provider/runtime.ts) this list does not name, so a
 * new resource cannot stay invisible to the policies and to `review --stack`.
 */
export const RESOURCE_KINDS = {
  OrgMember: "access",
  Invitation: "access",
  OrgMemberPermissions: "access",
  UserIdentifiers: "access",
  DatabaseUserPermissions: "access",
  OrganizationMembers: "access",
  DatabaseUsers: "access",
  EthicalWall: "access",
  CustodianDirectorySync: "no access",
  Dataset: "no access",
  SourceFile: "no access",
} as const satisfies Record<string, "access" | "no access">;
/** A resource kind of {@link RESOURCE_KINDS}. */
export type Kind = keyof typeof RESOURCE_KINDS;

// ---------------------------------------------------------------------------------------------
// Values not known yet

/**
 * A value not known yet (preview), in the plain model. A symbol of the pack's own, not the
 * engine's sentinel string (`UNKNOWN` elsewhere in the project): a string would pass `isString`
 * and be read as an email or a mode.
 */
export const NOT_KNOWN: unique symbol = Symbol("not known yet");
/** The type of {@link NOT_KNOWN}. */
export type NotKnown = typeof NOT_KNOWN;
/** A value of the plain model: known, or not known yet. */
export type Maybe<T> = T | NotKnown;

/** True for {@link NOT_KNOWN}. */
export function isNotKnown(v: unknown): v is NotKnown {
  return v === NOT_KNOWN;
}

function read(obj: unknown, key: string | number): unknown {
  try {
    return (obj as Record<string | number, unknown>)[key];
  } catch {
    // `@pulumi/policy` wraps props in a proxy that throws UnknownValueError on an unknown.
    return NOT_KNOWN;
  }
}

/**
 * A plain copy of resource properties with every unknown (the engine's sentinel, a throwing
 * access) replaced by {@link NOT_KNOWN}. Reads through `@pulumi/policy`'s unknown-checking proxy
 * one property at a time, so one unknown field does not hide the rest of the resource.
 */
export function toPlain(value: unknown): unknown {
  // The engine sends one sentinel for an unknown of any type; the proxy throws for the rest.
  if (value === unknownValue) return NOT_KNOWN;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const length = read(value, "length");
    if (typeof length !== "number") return NOT_KNOWN;
    return Array.from({ length }, (_, i) => toPlain(read(value, i)));
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toPlain(read(value, key));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The model

/** A resource of this package, its properties made plain by {@link toPlain}. */
export interface ResourceInfo {
  type: string;
  urn: string;
  name: string;
  props: Record<string, unknown>;
}

/** Who a resource is: kind and name, for messages (`OrgMember "ada"`). */
export interface ResourceRef {
  urn: string;
  name: string;
  kind: string;
}

/** A resource as messages name it: `OrgMember "ada"`. */
export function label(r: ResourceRef): string {
  return `${r.kind} "${r.name}"`;
}

/** Ownership levels, from docs/resources.md's table. */
export type Level = "authoritative roster" | "additive roster" | "one person" | "one field";
/** The levels from the widest to the narrowest. */
export const LEVELS: readonly Level[] = ["authoritative roster", "additive roster", "one person", "one field"];

/** Permissions a declaration sets: the known ones, and whether some are not known yet. */
export interface Perms {
  known: string[];
  partial: boolean;
}

/**
 * One person in one organization or database, as one resource declares them: a grant
 * (contract/grants.ts) whose values may not be known yet, see {@link grantOfDeclaration}.
 * `permissions` undefined: the resource does not manage them; NOT_KNOWN: not known yet.
 */
export interface Declaration {
  res: ResourceRef;
  scope: ScopeKind;
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
  /** The grant's end date (YYYY-MM-DD) when it has one (issue 26); undefined: none. */
  expiresOn?: Maybe<string>;
}

/**
 * The grant a declaration makes, as far as it is known: undefined while its scope id is not known;
 * the email and user id when known; the permissions when managed and all known; the end date when
 * known; `declaredBy` its resource's label.
 */
export function grantOfDeclaration(d: Declaration): Grant | undefined {
  if (isNotKnown(d.scopeId)) return undefined;
  const email = isString(d.email) ? { email: d.email } : {};
  const userId = isNumber(d.userId) ? { userId: d.userId } : {};
  const perms = d.permissions === undefined || isNotKnown(d.permissions) || d.permissions.partial ? undefined : d.permissions.known;
  return {
    scope: { kind: d.scope, id: d.scopeId },
    subject: { ...email, ...userId },
    ...(perms ? { permissions: perms } : {}),
    ...(isString(d.expiresOn) ? { window: { expiresOn: d.expiresOn } } : {}),
    declaredBy: label(d.res),
  };
}

/** A roster: which scope it owns, in which mode, and whom it leaves alone. */
export interface Roster {
  res: ResourceRef;
  scope: ScopeKind;
  scopeId: Maybe<number>;
  mode: Maybe<string>;
  /** Lower-cased emails / user ids (as strings) it declares; NOT_KNOWN if the map is not known. */
  people: Maybe<Set<string>>;
  /** protectedEmails (lower-cased) / protectedUserIds (as strings). */
  protectedPeople: Maybe<Set<string>>;
}

/** An EthicalWall: who is walled off which databases (provider/resources/ethicalWall.ts). */
export interface Wall {
  res: ResourceRef;
  databaseIds: Maybe<number[]>;
  /** Lower-cased emails and `*@domain` patterns: the people walled off (absent on a matter-team wall). */
  people?: Maybe<string[]>;
  /** A matter-team wall's team and alsoAllowed (lower-cased): everyone else is walled off. */
  team?: Maybe<string[]>;
  alsoAllowed?: Maybe<string[]>;
  /** The approved exceptions as declared, and those in force as the wall's check found them by the service's clock. */
  exceptions?: Maybe<WallException[]>;
  exceptionsInForce?: WallException[];
  reason: Maybe<string>;
  /** User id (as a string) -> email, as the wall's check or last read found them; empty when not known. */
  walledUsers: Record<string, string>;
  /** Database id -> the organization whose org admins reach it (orgAdminAccess on), as the wall's check found it. */
  orgAdminReach: Record<string, number>;
}

/** Whom the wall walls off, as `wallCloses` reads it; undefined while its people or team are not known. */
export function wallRuleOf(w: Wall): WallRule | undefined {
  if (w.team !== undefined) {
    if (isNotKnown(w.team) || isNotKnown(w.alsoAllowed ?? [])) return undefined;
    return { team: w.team, alsoAllowed: (w.alsoAllowed ?? []) as string[] };
  }
  if (w.people === undefined || isNotKnown(w.people)) return undefined;
  return { people: w.people };
}

/** Everything the stack declares about access. */
export interface Declared {
  declarations: Declaration[];
  rosters: Roster[];
  /** Ethical walls (absent: none). */
  walls?: Wall[];
}

/** A known plain object (not an array, not {@link NOT_KNOWN}). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !isNotKnown(v);

/** A required field: missing counts as not known (some engine paths drop unknowns). */
function required<T>(v: unknown, ok: (x: unknown) => x is T): Maybe<T> {
  return ok(v) ? v : NOT_KNOWN;
}
/** A known number (not {@link NOT_KNOWN}). */
export const isNumber = (v: unknown): v is number => typeof v === "number";
/** A known string (not {@link NOT_KNOWN}). */
export const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";

function emailOf(v: unknown): Maybe<string> {
  return isString(v) ? v.trim().toLowerCase() : NOT_KNOWN;
}

/** Optional field: undefined stays undefined (not managed / not given). */
function optional<T>(v: unknown, f: (x: unknown) => Maybe<T>): Maybe<T> | undefined {
  return v === undefined || v === null ? undefined : f(v);
}

function permsOf(v: unknown): Maybe<Perms> {
  if (!Array.isArray(v)) return NOT_KNOWN;
  return { known: v.filter(isString), partial: v.some((p) => !isString(p)) };
}

/** An end date: undefined when none is given. */
function endOf(v: unknown): Maybe<string> | undefined {
  return optional(v, (x) => required(x, isString));
}

/** Either `email` or `userId` names the member (OrgMemberPermissions, UserIdentifiers). */
function memberRef(props: Record<string, unknown>): Pick<Declaration, "email" | "userId"> {
  if (props.email !== undefined && props.email !== null) return { email: emailOf(props.email) };
  if (props.userId !== undefined && props.userId !== null) return { userId: required(props.userId, isNumber) };
  return { email: NOT_KNOWN };
}

function setOf(v: unknown, key: (x: unknown) => string | undefined): Maybe<Set<string>> {
  if (v === undefined || v === null) return new Set();
  if (!Array.isArray(v)) return NOT_KNOWN;
  const out = new Set<string>();
  for (const x of v) {
    const k = key(x);
    if (k === undefined) return NOT_KNOWN;
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
  // A roster's maps cross the engine as JSON text on the dynamic face (contract/packed.ts).
  const p = unpackProps(kind, r.props);
  const org = () => required(p.organizationId, isNumber);
  const db = () => required(p.databaseId, isNumber);

  // A kind this pack does not know (a newer provider's) reaches the default: it declares nothing the pack can read.
  const known = kind as Kind;
  switch (known) {
    case "EthicalWall": {
      const list = <T>(v: unknown, ok: (x: unknown) => x is T): Maybe<T[]> => (Array.isArray(v) && v.every(ok) ? v : NOT_KNOWN);
      const walledUsers = isObject(p.walledUsers)
        ? Object.fromEntries(Object.entries(p.walledUsers).filter((e): e is [string, string] => isString(e[1])))
        : {};
      const lower = (v: unknown) => {
        const xs = list(v, isString);
        return isNotKnown(xs) ? xs : xs.map((x) => x.trim().toLowerCase());
      };
      const isException = (x: unknown): x is WallException => isObject(x) && isString(x.person) && isString(x.endsOn);
      const exceptions = (v: unknown) => {
        const xs = list(v, isException);
        return isNotKnown(xs) ? xs : xs.map((x) => ({ ...x, person: x.person.trim().toLowerCase() }));
      };
      const inForce = p.exceptionsInForce === undefined ? undefined : exceptions(p.exceptionsInForce);
      out.walls = [
        {
          res,
          databaseIds: list(p.databaseIds, isNumber),
          ...(p.people !== undefined ? { people: lower(p.people) } : {}),
          ...(p.team !== undefined ? { team: lower(p.team) } : {}),
          ...(p.alsoAllowed !== undefined ? { alsoAllowed: lower(p.alsoAllowed) } : {}),
          ...(p.exceptions !== undefined ? { exceptions: exceptions(p.exceptions) } : {}),
          ...(inForce !== undefined && !isNotKnown(inForce) ? { exceptionsInForce: inForce } : {}),
          reason: required(p.reason, isString),
          walledUsers,
          orgAdminReach: isObject(p.orgAdminReach)
            ? Object.fromEntries(Object.entries(p.orgAdminReach).filter((e): e is [string, number] => isNumber(e[1])))
            : {},
        },
      ];
      break;
    }
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
        expiresOn: endOf(p.expiresOn),
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
        expiresOn: endOf(p.expiresOn),
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
        expiresOn: endOf(p.expiresOn),
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
        expiresOn: endOf(p.expiresOn),
      });
      break;
    case "OrganizationMembers":
    case "DatabaseUsers": {
      const isOrg = known === "OrganizationMembers";
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
        people: isObject(map) ? new Set() : NOT_KNOWN,
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
          else permissions = NOT_KNOWN;
        } else {
          if (Array.isArray(value) || isNotKnown(value)) permissions = permsOf(value);
          else if (isObject(value)) {
            if (Array.isArray(managed) && !managed.some((m) => String(m) === key)) continue;
            permissions = permsOf(value.permissions);
          } else permissions = NOT_KNOWN;
        }
        if (roster.people !== NOT_KNOWN) roster.people.add(person);
        // An entry's end date: in its inputs' object form, or in the outputs' `expiresOn` map.
        const ends = isObject(p.expiresOn) ? p.expiresOn : {};
        const expiresOn = endOf(isObject(value) && "expiresOn" in value ? value.expiresOn : (ends[key] ?? ends[person]));
        out.declarations.push(
          isOrg
            ? { res, scope, scopeId, level, email: person, userId, permissions, status, expiresOn }
            : { res, scope, scopeId, level, userId: /^\d+$/.test(key) ? Number(key) : NOT_KNOWN, permissions, expiresOn },
        );
      }
      break;
    }
    case "CustodianDirectorySync":
    case "Dataset":
    case "SourceFile":
      break;
    default:
      // Every kind of RESOURCE_KINDS has its case above: a new one fails to compile here.
      known satisfies never;
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
    if (d.walls) (out.walls ??= []).push(...d.walls);
  }
  return out;
}
