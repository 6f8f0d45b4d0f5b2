/**
 * A long list read in chains (provider/access/splitList.ts): on plain values against a cursor pager
 * that counts its pages, and through the organization gateway against the emulator over HTTP.
 */
import { afterAll, describe, expect, it } from "vitest";
import { listedMembers } from "../../provider/access/orgPeople";
import { MAX_CHAINS, readInChains, splitPoints } from "../../provider/access/splitList";
import { ReviewAdminClient } from "../../provider/client";
import { useEmulator } from "../support/emulatorHttp";

/** A list of ids paged by cursor as the API pages it (200 a page, ascending ids); counts the pages asked for. */
function pager(ids: number[]) {
  const sorted = [...ids].sort((a, b) => a - b);
  const counter = { pages: 0 };
  const page = async function* (after: number | undefined) {
    let from = after === undefined ? 0 : sorted.findIndex((id) => id > after);
    while (from !== -1 && from < sorted.length) {
      counter.pages++;
      const items = sorted.slice(from, from + 200);
      for (const id of items) yield { id };
      from = from + 200 < sorted.length ? from + 200 : -1;
    }
  };
  return { page, counter };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i * 3);

describe("splitPoints", () => {
  it("splits a list of 8 pages or more at whole pages, at most MAX_CHAINS chains; a short list not at all", () => {
    expect(splitPoints(range(1, 1_000))).toEqual([]);
    const ids = range(1, 28_007);
    const splits = splitPoints(ids);
    expect(splits.length).toBe(MAX_CHAINS - 1);
    // 141 pages: 18 pages a chain, each split the last id of its chain's last page.
    expect(splits).toEqual(Array.from({ length: 7 }, (_, i) => ids[(i + 1) * 18 * 200 - 1]));
    expect(splitPoints([...ids].reverse())).toEqual(splits);
  });
});

describe("readInChains", () => {
  it("reads every item once, in id order, with no more pages than one chain when nothing changed", async () => {
    const ids = range(5, 28_007);
    const one = pager(ids);
    const single = await readInChains([], (x: { id: number }) => x.id, one.page);
    const split = pager(ids);
    const chained = await readInChains(splitPoints(ids), (x: { id: number }) => x.id, split.page);
    expect(chained).toEqual(single);
    expect(single.map((x) => x.id)).toEqual(ids);
    expect(split.counter.pages).toBe(one.counter.pages);
    expect(one.counter.pages).toBe(141);
  });

  it("after people were added and removed (a split id among them) still reads the list as it is, each once", async () => {
    const stored = range(5, 3_000);
    const splits = splitPoints(stored);
    const now = [...stored.filter((id) => id !== splits[1] && id % 7 !== 0), 2, 4_000, stored[450]! + 1, 99_999];
    const { page, counter } = pager(now);
    const read = await readInChains(splits, (x: { id: number }) => x.id, page);
    expect(read.map((x) => x.id)).toEqual([...new Set(now)].sort((a, b) => a - b));
    // At most one page more per chain than one chain would read.
    expect(counter.pages).toBeLessThanOrEqual(Math.ceil(now.length / 200) + splits.length);
  });
});

describe("an organization's members read in chains over HTTP", () => {
  const emu = useEmulator({ scale: { members: 2_000, databases: 0, usersPerDatabase: 0 } });
  const clients: ReviewAdminClient[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));
  const client = () => {
    const c = new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin!, requestsPerSecond: 1000, retryBaseMs: 1 });
    clients.push(c);
    return c;
  };
  const listRequests = (from: number) =>
    emu.traffic.log
      .list()
      .slice(from)
      .filter((e) => e.path.startsWith("/v1/organizations/102/users"));

  it("gives the same members with the same number of requests as one chain, the stored ids splitting it", async () => {
    let from = emu.traffic.log.list().length;
    const whole = await listedMembers(client(), 102);
    const oneChain = listRequests(from).length;
    expect(whole.size).toBeGreaterThan(2_000);

    from = emu.traffic.log.list().length;
    const split = await listedMembers(client(), 102, [...whole.keys()]);
    const requests = listRequests(from);
    expect([...split.entries()]).toEqual([...whole.entries()]);
    expect(requests.length).toBe(oneChain);
    // Read in chains at once: the pages arrive out of id order (one chain asks in order).
    const afters = requests.map((e) => Number(/after=(\d+)/.exec(e.path)?.[1] ?? 0));
    expect(afters.some((a, i) => i > 0 && a < afters[i - 1]!)).toBe(true);
    expect(requests.every((e) => e.status === 200)).toBe(true);
  });
});
