/**
 * The prelude of the data-source tests: a seeded emulator for the calling file, reached over
 * real HTTP on loopback with its rate limit off (pacing is tested in test/client/pacing.test.ts
 * and, for a data source, in accessReview.test.ts), options acting with a seeded role's key,
 * and helpers to read an Output's value or a read's failure.
 */
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, expect } from "vitest";
import { getClient, type ClientOptions } from "../../provider/client";
import { DataSourceError, type DataSourceOptions } from "../../provider/data";
import { startEmulator, type RunningEmulator } from "../../emulator";

/** Settings of a client at 1000 requests/s: the emulator's limit is off here. */
type FastSettings = Pick<ClientOptions, "baseUrl" | "apiKey" | "requestsPerSecond">;

export interface SeededEmulator {
  readonly emu: RunningEmulator;
  /** Options acting with a seeded role's key, through a shared client. */
  as(role: string): DataSourceOptions;
  /** Settings (not a client) for a role's key, or any key; the client they make is closed after the file. */
  settingsOf(roleOrKey: { role: string } | { key: string }): FastSettings;
}

/** Registers the hooks of a data-source test file and returns its helpers. */
export function useSeededEmulator(): SeededEmulator {
  let emu: RunningEmulator | undefined;
  const used = new Map<string, FastSettings>();

  beforeAll(async () => {
    emu = await startEmulator({ rateLimit: 0 });
  });
  afterAll(async () => {
    await Promise.all([...used.values()].map((s) => getClient(s).close()));
    await emu?.close();
  });

  const settingsOf = (who: { role: string } | { key: string }): FastSettings => {
    const s = { baseUrl: emu!.url, apiKey: "key" in who ? who.key : emu!.keys[who.role], requestsPerSecond: 1000 };
    used.set(s.apiKey, s);
    return s;
  };
  return {
    get emu() {
      return emu!;
    },
    as: (role) => ({ client: getClient({ ...settingsOf({ role }), retryBaseMs: 5 }) }),
    settingsOf,
  };
}

/**
 * The value of an Output outside a Pulumi program (rejects when the data source fails). The
 * Output's internal isKnown/isSecret promises reject too; a program's host reports those, here
 * they are observed so that only the value's rejection counts.
 */
export function valueOf<T>(out: pulumi.Output<T>): Promise<T> {
  const o = out as unknown as { promise(): Promise<T>; isKnown: Promise<boolean>; isSecret: Promise<boolean> };
  o.isKnown.catch(() => {});
  o.isSecret.catch(() => {});
  return o.promise();
}

/** The failure of a read, which must fail with a DataSourceError. */
export async function failure(p: Promise<unknown>): Promise<DataSourceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DataSourceError);
    return err as DataSourceError;
  }
  throw new Error("expected a failure");
}
