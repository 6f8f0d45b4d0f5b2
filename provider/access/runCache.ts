/**
 * What one run keeps per client: each gateway's lists (orgPeople.ts,
 * databaseGrants.ts), who the key is, and who-changed's reads. Keyed by client: getClient returns
 * one client per (base URL, key), so two keys never share.
 */
import type { User } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { isStatus } from "../failures";

/** A store of `T` per client, made by `init` on first use; it lives as long as the client. */
export function perClient<T>(init: () => T): (client: ReviewAdminClient) => T {
  const stores = new WeakMap<ReviewAdminClient, T>();
  return (client) => {
    let s = stores.get(client);
    if (!s) stores.set(client, (s = init()));
    return s;
  };
}

/** The promise kept in `map` for `key`, loading it once; a failed load is not kept, so the next caller tries again. */
export function memo<K, V>(map: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  let p = map.get(key);
  if (!p) {
    p = load();
    map.set(key, p);
    p.catch(() => {
      if (map.get(key) === p) map.delete(key);
    });
  }
  return p;
}

/** Applies `change` to the list `map` holds for `key`, if it was read (a write to a list not read yet is not recorded). */
export async function amend<K, V>(map: Map<K, Promise<V>>, key: K, change: (value: V) => void): Promise<void> {
  const p = map.get(key);
  const value = p ? await p.catch(() => undefined) : undefined;
  if (value !== undefined) change(value);
}

const me = perClient(() => new Map<"me", Promise<User | undefined>>());

/** The user behind the API key, or undefined for an organization-level key (no user of its own); asked once per run. */
export function currentUser(client: ReviewAdminClient): Promise<User | undefined> {
  return memo(me(client), "me", () =>
    client.call("GetCurrentUser", {}).catch((err) => {
      if (isStatus(err, 404) || isStatus(err, 403)) return undefined;
      throw err;
    }),
  );
}
