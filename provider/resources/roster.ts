/** Pieces shared by the two rosters (OrganizationMembers, DatabaseUsers). */
import { z } from "zod";

/** "authoritative": the live set is made to equal the map; "additive": entries are only added or updated. */
export type RosterMode = "authoritative" | "additive";

/** The mode input, required: removing people should never be a default. */
export const rosterMode = z.enum(["authoritative", "additive"], { message: 'must be "authoritative" or "additive"' });

/** Runs `fn` over `items` with at most `limit` in flight (the client's limiter paces the requests). */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
