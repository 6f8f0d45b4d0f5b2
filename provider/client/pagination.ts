/**
 * How far one list follows links.next. The service ends a list with `next: null`, after at most
 * one empty page; a server that never does (a bug, a proxy, a hostile host) would otherwise hold
 * a run forever, so every list stops at one of three bounds and says which.
 */
import { ResponseValidationError, type RequestContext } from "./errors";

/** Empty pages in a row that still name a next page: the service sends at most one, at the end. */
export const MAX_EMPTY_PAGES_IN_A_ROW = 10;

/**
 * The most items one list is followed for: far more than any organization's members, users or
 * projects, and 500 pages of a year's activity events at 10,000 a page. The page cap is this
 * divided by the page size asked for.
 */
export const MAX_LIST_ITEMS = 5_000_000;

/** Counts the pages of one list and throws, naming the route and the bound, when it must stop. */
export class PageBounds {
  readonly #maxPages: number;
  readonly #pageSize: number;
  readonly #seen = new Set<string>();
  #pages = 0;
  #emptyInARow = 0;

  /** `pageSize`: the `limit` each page is asked for. */
  constructor(pageSize: number) {
    this.#pageSize = pageSize;
    this.#maxPages = Math.ceil(MAX_LIST_ITEMS / pageSize);
  }

  /** Records the page at `ctx` (with `items` items) whose links.next is `next`; throws if following it would pass a bound. */
  follow(ctx: RequestContext, items: number, next: string): void {
    this.#seen.add(ctx.path);
    this.#pages += 1;
    this.#emptyInARow = items === 0 ? this.#emptyInARow + 1 : 0;
    const stop = (rule: string) => new ResponseValidationError(ctx, "links.next", rule);
    if (this.#seen.has(next)) throw stop("points back at a page already read");
    if (this.#emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
      throw stop(
        `still names a next page after ${this.#emptyInARow} empty pages in a row; a list stops there ` +
          `(the service ends a list with at most one empty page)`,
      );
    }
    if (this.#pages >= this.#maxPages) {
      throw stop(
        `still names a next page after ${this.#pages} pages; a list stops there ` +
          `(${MAX_LIST_ITEMS} items at ${this.#pageSize} a page, more than the service holds in one list)`,
      );
    }
  }
}
