/**
 * Who in this run declares each person and grant, so that a program edit never removes access
 * the program still declares. A rename, a move into a component, or a person moved from an
 * OrgMember into a roster makes Pulumi create (or update) the new holder and delete the old one
 * in the same run; the delete must then hand over instead of removing.
 *
 * Every resource of the program is checked before the engine deletes anything the program no
 * longer declares, so the claims made at check are complete when a delete asks. An authoritative
 * roster removes people while the program is still being checked, so it first waits until checks
 * have gone quiet (declarationsSettled). A destroy checks
 * nothing: it removes as usual. One plugin process serves one run, so the claims live as long
 * as the process.
 */

import { normalizeEmail } from "./normalize";

/** What a claim is about: a person's presence in an organization, one of their fields, or a database grant. */
export type ClaimKind = "member" | "permissions" | "identifiers" | "grant";

/** A claim key: `member:102:email:ada@x.example`, `member:102:user:1003`, `grant:2001:1003`, ... */
export type ClaimKey = string;

/** The keys naming a person of an organization, by every identity known (email and/or user id). */
export function personKeys(
  kind: Exclude<ClaimKind, "grant">,
  orgId: number,
  who: { email?: string | null; userId?: number | null },
): ClaimKey[] {
  const keys: ClaimKey[] = [];
  if (who.email) keys.push(`${kind}:${orgId}:email:${normalizeEmail(who.email)}`);
  if (who.userId) keys.push(`${kind}:${orgId}:user:${who.userId}`);
  return keys;
}

/** The key of one user's grant on one database. */
export function grantKey(databaseId: number, userId: number | string): ClaimKey {
  return `grant:${databaseId}:${userId}`;
}

interface Registry {
  claims: Map<ClaimKey, string>;
  /** performance.now() of the last check. */
  lastCheckAt: number;
}

// Symbol.for: one registry per process even if two copies of this package are loaded.
const SLOT = Symbol.for("pulumi-reviewadmin.claims");
function state(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry>;
  return (g[SLOT] ??= { claims: new Map(), lastCheckAt: 0 });
}
const registry = () => state().claims;

/** Notes that a resource of the program is being checked. */
export function noteCheck(): void {
  state().lastCheckAt = performance.now();
}

/**
 * Resolves once no resource has been checked for `quietMs` (or after `maxMs`): by then the
 * program has declared what it declares without waiting on other resources' outputs.
 */
export async function declarationsSettled(quietMs = 1000, maxMs = 30_000): Promise<void> {
  const started = performance.now();
  for (;;) {
    const quietFor = performance.now() - state().lastCheckAt;
    const left = maxMs - (performance.now() - started);
    if (quietFor >= quietMs || left <= 0) return;
    await new Promise((r) => setTimeout(r, Math.min(quietMs - quietFor, left) + 5));
  }
}

/** Records that the resource `holder` (its label) declares these keys in this run. */
export function claim(keys: readonly ClaimKey[], holder: string): void {
  for (const key of keys) registry().set(key, holder);
}

/**
 * The label of a resource of this run that declares any of these keys. A resource replaced with
 * the same keys (`--replace`) finds its own new self here, which is right: the new one holds them.
 */
export function holderOf(keys: readonly ClaimKey[]): string | undefined {
  for (const key of keys) {
    const holder = registry().get(key);
    if (holder !== undefined) return holder;
  }
  return undefined;
}
