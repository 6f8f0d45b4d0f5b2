/**
 * after/limit paging for list endpoints (contract: `after` is the id of the last element of the
 * previous page; `links.next` is a complete URL carrying `after` and `limit`, null on the last
 * page).
 */
import type { HandlerContext, HandlerResult } from "./handlers/types";

/** Default page size of ordinary list endpoints (spec: limit 1..200, default 100). */
export const DEFAULT_LIMIT = 100;

/** How `page` reads an item's cursor, and its page size when the request gives no `limit`. */
export interface PageOptions<T> {
  /** The cursor of an item; defaults to its `id`. Items are returned in ascending cursor order. */
  key?: (item: T) => number;
  /** Page size when the request has no `limit`. */
  defaultLimit?: number;
}

/** One page cut from a full list. */
export interface Page<T> {
  items: T[];
  /** Cursor of the last item when more items follow, else null. */
  nextAfter: number | null;
  limit: number;
}

/** Cuts the page after `after` (exclusive) of at most `limit` items, sorted by cursor. */
export function cutPage<T>(items: readonly T[], after: number | undefined, limit: number, key: (item: T) => number): Page<T> {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  const rest = after === undefined ? sorted : sorted.filter((i) => key(i) > after);
  const pageItems = rest.slice(0, limit);
  const more = rest.length > limit;
  return { items: pageItems, nextAfter: more ? key(pageItems[pageItems.length - 1]) : null, limit };
}

/** The URL of the next page: the request's own URL on the emulator's base, with `after` and `limit` set. */
export function nextPageUrl(ctx: HandlerContext, after: number, limit: number): string {
  const next = new URL(ctx.baseUrl + ctx.url.pathname + ctx.url.search);
  next.searchParams.set("after", String(after));
  next.searchParams.set("limit", String(limit));
  return next.toString();
}

/**
 * The handler result of a list endpoint: one page of `items` (sorted by cursor, after the
 * request's `after`, at most its `limit`) and the next page's URL, or null on the last page.
 */
export function page<T>(ctx: HandlerContext, items: readonly T[], options: PageOptions<T> = {}): HandlerResult & { data: T[] } {
  const key = options.key ?? ((item: T) => (item as { id: number }).id);
  const limit: number = ctx.params.limit ?? options.defaultLimit ?? DEFAULT_LIMIT;
  const p = cutPage(items, ctx.params.after, limit, key);
  return { data: p.items, next: p.nextAfter === null ? null : nextPageUrl(ctx, p.nextAfter, limit) };
}
