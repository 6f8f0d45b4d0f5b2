/**
 * A long list read as several chains of pages at once. The API pages by cursor (`after`: the id of
 * the last item of the previous page, items in id order), so one chain is one request at a time:
 * an organization of 28,007 people is 141 pages, and read alone after the engine's other reads it
 * went at the pace of the round trip (about 16 pages a second) instead of the key's 25 requests a
 * second (bench/results/enterprise.md, refresh). Ids known from the stored state split the list:
 * chain i starts after split i and stops once it has passed split i + 1. Every split a whole number
 * of pages apart, so with nothing changed no chain reads a page more than one chain would.
 */
import { LARGEST_LIST_PAGE } from "../../contract/params";

/** At most this many chains read one list at once (the engine's own reads share the key's rate). */
export const MAX_CHAINS = 8;
/** A list shorter than this many pages is read as one chain. */
const MIN_PAGES_TO_SPLIT = 8;
/** The pages the reads ask for: the client asks for the largest a list route takes. */
const PAGE = LARGEST_LIST_PAGE;

/**
 * Split points for a list of about `known.length` ids (any order): every `PAGE × n`-th known id,
 * at most MAX_CHAINS - 1 of them; none for a short list.
 */
export function splitPoints(known: readonly number[]): number[] {
  const pages = Math.ceil(known.length / PAGE);
  if (pages < MIN_PAGES_TO_SPLIT) return [];
  const ids = [...new Set(known)].sort((a, b) => a - b);
  const pagesPerChain = Math.ceil(pages / MAX_CHAINS);
  const out: number[] = [];
  for (let at = pagesPerChain * PAGE - 1; at < ids.length - 1; at += pagesPerChain * PAGE) out.push(ids[at]!);
  return out;
}

/**
 * Every item of a list in id order, read in chains split at `splits` (ascending ids; none: one
 * chain). `page(after)` iterates the list from after that id. An item in two chains is kept once.
 */
export async function readInChains<T>(
  splits: readonly number[],
  idOf: (item: T) => number,
  page: (after: number | undefined) => AsyncIterable<T>,
): Promise<T[]> {
  const starts: (number | undefined)[] = [undefined, ...splits];
  const chains = starts.map(async (start, i) => {
    const end = splits[i];
    const items: T[] = [];
    for await (const item of page(start)) {
      const id = idOf(item);
      // Past this chain's end: the next chain has it. Stop before asking for another page.
      if (end !== undefined && id > end) break;
      items.push(item);
      if (end !== undefined && id === end) break;
    }
    return items;
  });
  const seen = new Set<number>();
  const out: T[] = [];
  for (const items of await Promise.all(chains))
    for (const item of items) {
      const id = idOf(item);
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(item);
    }
  return out;
}
