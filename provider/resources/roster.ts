/** Pieces shared by the two rosters (OrganizationMembers, DatabaseUsers). */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { describeFailure, isStatus, stripProvider, type ResourceImpl } from "./base";

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

/** What a roster kind supplies to get its create, read, update and delete. */
export interface RosterSpec<I, S> {
  label: (s: I | S) => string;
  hint: { forbidden?: string; notFound?: string };
  idOf: (inputs: I) => string;
  /** Makes the live set match the inputs; returns the state afterwards. */
  reconcile: (inputs: I, action: string) => Promise<S>;
  /** Reads the live set: the new state, and the inputs it stands for (so the next preview shows drift). */
  readLive: (props: S) => Promise<{ state: S; inputs: I }>;
  /** What delete logs: deleting a roster stops managing and removes nobody. */
  releaseNote: string;
}

/**
 * The CRUD both rosters share: create and update reconcile, read re-lists (404: gone), delete
 * lets go without removing anyone (removing everyone would be one typo away from a lockout).
 */
export function rosterCrud<I, S>(spec: RosterSpec<I, S>): Pick<ResourceImpl, "create" | "read" | "update" | "delete"> {
  const write = async (raw: unknown, verb: string) => {
    const inputs = stripProvider(raw as Record<string, unknown>) as I;
    const action = `${verb} ${spec.label(inputs)}`;
    try {
      return { inputs, state: await spec.reconcile(inputs, action) };
    } catch (err) {
      throw describeFailure(action, err, spec.hint);
    }
  };
  return {
    async create(raw) {
      const { inputs, state } = await write(raw, "creating");
      return { id: spec.idOf(inputs), outs: state };
    },
    async read(id, props: S) {
      try {
        const { state, inputs } = await spec.readLive(props);
        return { id, props: state, inputs };
      } catch (err) {
        if (isStatus(err, 404)) return {};
        throw describeFailure(`reading ${spec.label(props)}`, err, spec.hint);
      }
    },
    async update(_id, _olds, raw) {
      return { outs: (await write(raw, "updating")).state };
    },
    async delete(_id, props: S) {
      pulumi.log.info(`${spec.label(props)}: ${spec.releaseNote}`);
    },
  };
}
