/**
 * The access check of every handler, in one place. A handler names the object its path points
 * at (404 when it does not exist) and the model's rule for the route (model/access.ts); a
 * caller the rule turns away gets a 403 that quotes the route's own access text from the
 * contract, e.g. "Forbidden: GetOrganizationUsers needs org admin of organization 102". The
 * provider's hints quote the same text, so both sides of a refusal say the same thing.
 *
 * The object is looked up before the role is checked, so a missing organization or database is
 * a 404 for everyone; a member or user within it is looked up after, so a caller without the
 * role learns nothing about who is there.
 */
import { accessText } from "../../contract";
import { Forbidden } from "../errors";
import type { Caller, DatabaseRecord, OrganizationRecord } from "../model/records";
import type { Store } from "../model/store";
import type { DatabaseContext, HandlerContext, OrganizationContext } from "./types";

/** Throws Forbidden (403) unless `allowed`, quoting the route's access text with the request's ids. */
export function demandAccess(ctx: HandlerContext, allowed: boolean): void {
  if (allowed) return;
  const { orgId, databaseId, directoryId } = ctx.params;
  throw new Forbidden(`Forbidden: ${ctx.route.operationId} needs ${accessText(ctx.route, { orgId, databaseId, directoryId })}`);
}

/** The organization of the path (`orgId`; 404 when missing), once `rule` lets the caller in (else 403). */
export function accessibleOrganization(
  ctx: OrganizationContext,
  rule: (store: Store, caller: Caller, organizationId: number) => boolean,
): OrganizationRecord {
  const org = ctx.store.organizations.get(ctx.params.orgId);
  demandAccess(ctx, rule(ctx.store, ctx.caller, org.id));
  return org;
}

/** The database of the path (`databaseId`; 404 when missing), once `rule` lets the caller in (else 403). */
export function accessibleDatabase(
  ctx: DatabaseContext,
  rule: (store: Store, caller: Caller, db: DatabaseRecord) => boolean,
): DatabaseRecord {
  const db = ctx.store.databases.get(ctx.params.databaseId);
  demandAccess(ctx, rule(ctx.store, ctx.caller, db));
  return db;
}
