/**
 * The access guardrails as `@pulumi/policy` policies: each one reads the resources as the engine
 * hands them (declarations.ts makes them plain, unknowns included) and reports the findings of its
 * rule (one file per rule in rules/).
 * Enforcement levels are defaults; a policy config file (`--policy-pack-config`) changes them and
 * sets each policy's options. docs/policy.md describes every policy.
 */
import type {
  PolicyConfigSchema,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { ORG_ADMIN } from "../contract/grants";
import { OrganizationPermission } from "../contract/schemas";
import { declarationsOf, declaredBy, kindOf, toPlain, type Declared, type ResourceInfo } from "./declarations";
import { databaseAdminFindings } from "./rules/databaseAdmin";
import { domainRulesActive, type DomainConfig } from "./rules/domains";
import { ethicalWallFindings } from "./rules/ethicalWalls";
import { EXPIRY_DEFAULTS, invitationExpiryFindings } from "./rules/invitationExpiry";
import { EXTERNAL_EXPIRY_DEFAULTS, externalExpiryActive, externalExpiryFindings, type ExternalExpiryConfig } from "./rules/externalExpiry";
import { memberDomainFindings } from "./rules/memberDomains";
import { ADMIN_DEFAULTS, orgAdminCountFindings } from "./rules/orgAdminCount";
import { orgPermissionDomainFindings } from "./rules/orgPermissionDomains";
import { ownershipFindings } from "./rules/ownership";
import { STACK_TYPE, staleAccessFindings, staleAnswersOf, type StaleAccessConfig } from "./rules/stalePrivileged";
import type { Finding } from "./rules/shared";

/** The pack's name, as the CLI prints it. */
export const PACK_NAME = "reviewadmin-access-guardrails";

/** Where each policy's documentation lives: docs/policy.md, shipped in the package (node_modules/pulumi-reviewadmin/docs/policy.md). */
const DOC = "pulumi-reviewadmin/docs/policy.md";

// ---------------------------------------------------------------------------------------------
// Config schemas

type JsonSchema = PolicyConfigSchema["properties"][string];

const userEmails: JsonSchema = {
  type: "object",
  additionalProperties: { type: "string" },
  default: {},
  description: "User id -> email, for members named by user id (OrgMemberPermissions, UserIdentifiers).",
};

const allowedDomains: JsonSchema = {
  type: "array",
  items: { type: "string" },
  default: [],
  description: "Email domains whose people may join and hold organization permissions (e.g. northwind.example). Empty: the policy is off.",
};

const externalReviewers: JsonSchema = {
  type: "array",
  items: { type: "string" },
  default: [],
  description:
    "External reviewers: emails (jane@lawfirm.example) or domains (lawfirm.example or @lawfirm.example) allowed to join outside allowedDomains.",
};

const scope = (what: string): JsonSchema => ({
  type: "string",
  enum: ["authoritative", "declared"],
  default: "authoritative",
  description: `Where the minimum applies: "authoritative" (${what} the stack owns whole with an authoritative roster) or "declared" (every ${what.replace(/s$/, "")} the stack grants permissions in).`,
});

const schemas = {
  orgPermissionDomains: {
    properties: {
      allowedDomains,
      externalReviewers,
      externalReviewerPermissions: {
        type: "array",
        items: { type: "string", enum: OrganizationPermission.options.filter((p) => p !== ORG_ADMIN) },
        default: [],
        description: "Organization permissions an external reviewer may hold (ORG_ADMIN never). Default: none.",
      },
      userEmails,
    },
  },
  memberDomains: { properties: { allowedDomains, externalReviewers } },
  orgAdminCount: {
    properties: {
      maxOrgAdmins: {
        type: "integer",
        minimum: 1,
        default: ADMIN_DEFAULTS.maxOrgAdmins,
        description: "At most this many org admins per organization.",
      },
      minOrgAdmins: {
        type: "integer",
        minimum: 0,
        default: ADMIN_DEFAULTS.minOrgAdmins,
        description: "At least this many org admins (0: no minimum).",
      },
      scope: scope("organizations"),
      userEmails,
    },
  },
  databaseAdmin: { properties: { scope: scope("databases") } },
  ownership: { properties: { userEmails } },
  ethicalWalls: { properties: { userEmails } },
  invitationExpiry: {
    properties: {
      horizonDays: {
        type: "number",
        minimum: 0,
        default: EXPIRY_DEFAULTS.horizonDays,
        description: "Days until the next scheduled run of the stack.",
      },
      invitationLifetimeDays: {
        type: "number",
        exclusiveMinimum: 0,
        default: EXPIRY_DEFAULTS.invitationLifetimeDays,
        description: "Days an invitation stays valid once sent (the service's: 14).",
      },
    },
  },
  externalExpiry: {
    properties: {
      firmDomains: {
        type: "array",
        items: { type: "string" },
        default: [],
        description: "The firm's own email domains (e.g. northwind.example); everyone else is external. Empty: the policy is off.",
      },
      maxDays: {
        type: "number",
        minimum: 0,
        default: EXTERNAL_EXPIRY_DEFAULTS.maxDays,
        description: "Longest an external grant may run: its expiresOn at most this many days from today.",
      },
      domains: {
        type: "object",
        additionalProperties: {
          type: "object",
          properties: { maxDays: { type: "number", minimum: 0 }, required: { type: "boolean" } },
          additionalProperties: false,
        },
        default: {},
        description: "Terms per external domain: { maxDays } overrides the limit, { required: false } lets grants run without an end date.",
      },
      userEmails,
    },
  },
  staleAccess: {
    properties: {
      exempt: {
        type: "array",
        items: { type: "string" },
        default: [],
        description: "Emails or user ids never flagged (break-glass and service accounts).",
      },
      userEmails,
    },
  },
} satisfies Record<string, PolicyConfigSchema>;

// ---------------------------------------------------------------------------------------------
// Adapters

/** The package's resource kinds a policy reads. */
type Kinds = ReadonlySet<string>;
const ORG_PEOPLE: Kinds = new Set(["OrgMember", "OrganizationMembers", "OrgMemberPermissions", "Invitation"]);
const MEMBERS: Kinds = new Set(["OrgMember", "OrganizationMembers", "Invitation"]);
const PEOPLE_AND_GRANTS: Kinds = new Set([...ORG_PEOPLE, "DatabaseUsers", "DatabaseUserPermissions"]);

/** A resource policy over one resource's declarations. */
function perResource<C extends object>(kinds: Kinds, active: (cfg: C) => boolean, rule: (d: Declared, cfg: C) => Finding[]) {
  return (args: ResourceValidationArgs, report: ReportViolation): void => {
    const kind = kindOf(args.type);
    if (!kind || !kinds.has(kind)) args.notApplicable(`only for ${[...kinds].join(", ")}`);
    const cfg = args.getConfig<C>();
    if (!active(cfg)) args.notApplicable("allowedDomains is not configured");
    const props = toPlain(args.props) as Record<string, unknown>;
    for (const f of rule(declarationsOf({ type: args.type, urn: args.urn, name: args.name, props }), cfg)) report(f.message);
  };
}

/** The package's resources of a stack, made plain. */
export function stackResources(args: Pick<StackValidationArgs, "resources">): ResourceInfo[] {
  return args.resources
    .filter((r) => kindOf(r.type) !== undefined)
    .map((r) => ({ type: r.type, urn: r.urn, name: r.name, props: toPlain(r.props) as Record<string, unknown> }));
}

/** A stack policy over everything the stack declares. */
function perStack<C extends object>(kinds: Kinds, rule: (d: Declared, cfg: C) => Finding[]) {
  return (args: StackValidationArgs, report: ReportViolation): void => {
    const resources = stackResources(args).filter((r) => kinds.has(kindOf(r.type)!));
    if (resources.length === 0) args.notApplicable(`the stack has no ${[...kinds].join(", ")}`);
    for (const f of rule(declaredBy(resources), args.getConfig<C>())) report(f.message, f.urn);
  };
}

// ---------------------------------------------------------------------------------------------
// The policies

export const orgPermissionsAllowedDomains: ResourceValidationPolicy = {
  name: "org-permissions-allowed-domains",
  displayName: "Organization permissions only for allowed email domains",
  description:
    "Organization permissions (ORG_ADMIN and the others) are only for people of the allowed email domains; external reviewers hold at most externalReviewerPermissions, never ORG_ADMIN.",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.orgPermissionDomains,
  remediationSteps:
    "Remove the organization permissions from the person, or add their domain to allowedDomains. For an external reviewer, allow the permission in externalReviewerPermissions (never ORG_ADMIN). Name members by email, or map user ids in userEmails.",
  url: `${DOC}#org-permissions-allowed-domains`,
  validateResource: perResource<DomainConfig>(ORG_PEOPLE, domainRulesActive, orgPermissionDomainFindings),
};

export const membersAllowedDomains: ResourceValidationPolicy = {
  name: "members-allowed-domains",
  displayName: "Members and invitations only for allowed email domains",
  description:
    "People outside the allowed email domains are neither added to an organization nor invited, unless they are listed external reviewers.",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.memberDomains,
  remediationSteps: "Remove the person from the program, or list them (or their domain) in externalReviewers.",
  url: `${DOC}#members-allowed-domains`,
  validateResource: perResource<DomainConfig>(MEMBERS, domainRulesActive, memberDomainFindings),
};

export const orgAdminCount: StackValidationPolicy = {
  name: "org-admin-count",
  displayName: "Between minOrgAdmins and maxOrgAdmins org admins per organization",
  description:
    "Each organization has at most maxOrgAdmins org admins among what the stack declares, and at least minOrgAdmins where the stack owns the membership (scope).",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.orgAdminCount,
  remediationSteps:
    "Take ORG_ADMIN from some people (another organization permission may do) or give it to someone, as the message says; or change maxOrgAdmins, minOrgAdmins or scope.",
  url: `${DOC}#org-admin-count`,
  validateStack: perStack(ORG_PEOPLE, orgAdminCountFindings),
};

export const databaseAdminPresent: StackValidationPolicy = {
  name: "database-admin-present",
  displayName: "Every database keeps a DB_ADMIN",
  description:
    "Every database keeps at least one DB_ADMIN among what the stack declares (databases owned by an authoritative DatabaseUsers roster, or every database with scope: declared).",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.databaseAdmin,
  remediationSteps: "Grant DB_ADMIN to at least one user of the database in the roster (or a DatabaseUserPermissions).",
  url: `${DOC}#database-admin-present`,
  validateStack: perStack(new Set(["DatabaseUsers", "DatabaseUserPermissions"]), databaseAdminFindings),
};

export const singleOwnershipLevel: StackValidationPolicy = {
  name: "single-ownership-level",
  displayName: "No person managed at two ownership levels",
  description:
    "Each person of an organization or database is managed by one resource (field-level resources for different fields excepted), and an authoritative roster shares its scope with no resource naming someone it would remove.",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.ownership,
  remediationSteps:
    "Keep the person in one resource and remove them from the other, or protect them in the authoritative roster (protectedEmails / protectedUserIds) to manage them elsewhere.",
  url: `${DOC}#single-ownership-level`,
  validateStack: perStack(
    new Set([
      "OrgMember",
      "OrganizationMembers",
      "OrgMemberPermissions",
      "UserIdentifiers",
      "Invitation",
      "DatabaseUsers",
      "DatabaseUserPermissions",
    ]),
    ownershipFindings,
  ),
};

export const invitationExpiryHorizon: StackValidationPolicy = {
  name: "invitation-expiry-horizon",
  displayName: "Invitations outlive the next scheduled run",
  description: "An invitation that would expire before the next scheduled run of the stack (horizonDays) is flagged.",
  enforcementLevel: "advisory",
  severity: "low",
  configSchema: schemas.invitationExpiry,
  remediationSteps:
    "Ask the person to accept in time, re-send the invitation (change resendTrigger on the Invitation), or run the stack more often; set horizonDays to the real schedule.",
  url: `${DOC}#invitation-expiry-horizon`,
  validateStack: perStack(new Set(["Invitation", "OrgMember"]), (d, cfg) => invitationExpiryFindings(d, cfg)),
};

export const ethicalWalls: StackValidationPolicy = {
  name: "ethical-walls",
  displayName: "No grant crosses an ethical wall",
  description:
    "No resource of the stack grants a person an EthicalWall walls off (by email or *@domain pattern) permissions on one of its databases.",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.ethicalWalls,
  remediationSteps:
    "Take the person out of the roster or remove the grant, as the message says; or change the wall if it is wrong. Grants named by user id are matched through the wall's walledUsers and userEmails.",
  url: `${DOC}#ethical-walls`,
  validateStack: (args, report) => {
    const resources = stackResources(args);
    if (!resources.some((r) => kindOf(r.type) === "EthicalWall")) args.notApplicable("the stack has no EthicalWall");
    for (const f of ethicalWallFindings(declaredBy(resources), args.getConfig())) report(f.message, f.urn);
  },
};

export const externalAccessExpires: StackValidationPolicy = {
  name: "external-access-expires",
  displayName: "Access for people outside the firm's domains has an end date",
  description:
    "A grant to a person whose email domain is not one of firmDomains has an expiresOn at most maxDays (or the domain's own maxDays) away; domains can be exempted.",
  enforcementLevel: "mandatory",
  severity: "high",
  configSchema: schemas.externalExpiry,
  remediationSteps:
    "Set expiresOn (YYYY-MM-DD) on the grant, no later than the message says; or set terms for the domain in the policy config (domains: { maxDays } or { required: false }).",
  url: `${DOC}#external-access-expires`,
  validateStack: (args, report) => {
    if (!externalExpiryActive(args.getConfig<ExternalExpiryConfig>())) args.notApplicable("firmDomains is not configured");
    return perStack(PEOPLE_AND_GRANTS, externalExpiryFindings)(args, report);
  },
};

export const stalePrivilegedAccess: StackValidationPolicy = {
  name: "stale-privileged-access",
  displayName: "Privileged people without recent activity are flagged",
  description:
    "A person holding an organization permission or DB_ADMIN with no activity in the window of a getStalePrivilegedPeople answer the stack exports as an output is flagged, on each resource granting the privilege (or on the stack when none does).",
  enforcementLevel: "advisory",
  severity: "medium",
  configSchema: schemas.staleAccess,
  remediationSteps:
    "Take the privilege away if it is no longer needed (the next access review records it), or list the person in exempt (a break-glass account). The judgement is the exported getStalePrivilegedPeopleOutput's (its staleDays and staleDaysByPrivilege).",
  url: `${DOC}#stale-privileged-access`,
  validateStack: (args, report) => {
    const stack = args.resources.find((r) => r.type === STACK_TYPE);
    const answers = stack ? staleAnswersOf(toPlain(stack.props) as Record<string, unknown>) : [];
    if (answers.length === 0) args.notApplicable("the stack exports no getStalePrivilegedPeople answer as an output");
    const declared = declaredBy(stackResources(args));
    for (const f of staleAccessFindings(declared, answers, args.getConfig<StaleAccessConfig>())) report(f.message, f.urn);
  },
};

/** Every policy of the pack, in the order docs/policy.md lists them. */
export const policies = [
  orgPermissionsAllowedDomains,
  membersAllowedDomains,
  orgAdminCount,
  databaseAdminPresent,
  singleOwnershipLevel,
  invitationExpiryHorizon,
  ethicalWalls,
  externalAccessExpires,
  stalePrivilegedAccess,
];
