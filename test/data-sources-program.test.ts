/**
 * Data sources beyond the emulator's happy path: inside a Pulumi program (Output forms, Inputs
 * from other outputs, credentials from stack config only, dependsOn), and against a scripted
 * service whose event pages repeat the boundary events (de-duplication by id).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "../provider/client";
import * as data from "../provider/data";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { ProgramStack } from "../harness/program/stack";
import { ScriptedServer } from "./support/scriptedServer";

const repoRoot = path.resolve(__dirname, "..");

/** A custom resource the mocks "create" (slowly: see the mocks below). */
class Marker extends pulumi.CustomResource {
  constructor(name: string) {
    super("test:index:Marker", name, {});
  }
}

describe("data sources in a Pulumi program", () => {
  let emu: RunningEmulator;
  let stack: ProgramStack;
  const saved = { ...process.env };
  let markerCreatedAt = 0;

  beforeAll(async () => {
    emu = await startEmulator({ rateLimit: 0 });
    // Only stack config may supply credentials here.
    delete process.env.REVIEWADMIN_API_KEY;
    delete process.env.REVIEWADMIN_BASE_URL;
    stack = new ProgramStack({
      cwd: repoRoot,
      project: "data-sources",
      stack: "dev",
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin },
      secretConfigKeys: ["reviewadmin:apiKey"],
      mocks: {
        // The marker takes a while to "create": reads that depend on it must wait.
        newResource: async (args) => {
          await new Promise((r) => setTimeout(r, 300));
          markerCreatedAt = Date.now();
          return { id: `${args.name}_id`, state: args.inputs };
        },
      },
    });
  });

  afterAll(async () => {
    process.env = { ...saved };
    await stack?.close();
    await getClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin }).close();
    await emu?.close();
  });

  it("Output forms take Inputs, read reviewadmin:* stack config and wait for dependsOn", async () => {
    emu.traffic.log.reset();
    const result = await stack.up(async () => {
      const org = data.getOrganizationOutput({ orgId: SEEDED.org });
      // An input that is another data source's output.
      const members = data.getOrganizationMembersOutput({ orgId: org.id, permission: "ORG_ADMIN" });
      const marker = new Marker("marker");
      const matrix = data.getAccessMatrixOutput({ orgId: org.id }, { dependsOn: marker });
      const events = data.getActivityEventsOutput({ orgId: org.id, recent: true, limit: 5 });
      return {
        orgName: org.name,
        adminEmails: members.emails,
        csv: matrix.apply(data.toCsv),
        unreadable: matrix.summary.unreadableDatabases,
        eventCount: events.events.apply((e) => e.length),
      };
    });
    expect(result.errors).toEqual([]);
    expect(result.outputs.orgName).toBe("Northwind Legal");
    expect(result.outputs.adminEmails).toEqual(["ada@northwind.example"]);
    expect(result.outputs.unreadable).toBe(1);
    expect(result.outputs.eventCount).toBe(5);
    expect(String(result.outputs.csv)).toContain("database,2002,Internal Investigation,,,,,not readable,,");
    // Only the access matrix reads invitations: it started after the marker was created.
    const invitationReads = emu.traffic.log.list("GetOrganizationInvitations");
    expect(invitationReads).toHaveLength(1);
    expect(markerCreatedAt).toBeGreaterThan(0);
    expect(Date.parse(invitationReads[0].time)).toBeGreaterThanOrEqual(markerCreatedAt - 1);
  });
});

describe("data sources at the service's default rate limit", () => {
  let emu: RunningEmulator;

  beforeAll(async () => {
    // Default pacing on both sides: the emulator answers 429 above 25 requests/second per account,
    // and the client (default requestsPerSecond 25) must stay under it.
    emu = await startEmulator();
  });
  afterAll(async () => {
    await getClient({ baseUrl: emu.url, apiKey: emu.keys.orgKey }).close();
    await emu?.close();
  });

  it("an access matrix over 40 databases and 450 extra members reads everything without a 429", async () => {
    emu.store.addSyntheticMembers(SEEDED.org, 450);
    emu.store.addSyntheticDatabases(SEEDED.org, 38, 1);
    emu.traffic.log.reset();
    const started = performance.now();
    const m = await data.getAccessMatrix({ orgId: SEEDED.org }, { settings: { baseUrl: emu.url, apiKey: emu.keys.orgKey } });
    const took = performance.now() - started;
    expect(m.databases).toHaveLength(40);
    expect(m.members.length).toBe(emu.store.membersOf(SEEDED.org).length);
    expect(m.databases.filter((d) => d.readable && d.users.length === 1)).toHaveLength(39);
    const log = emu.traffic.log.list();
    expect(log.filter((e) => e.status === 429)).toEqual([]);
    // 1 org + 3 member pages + 1 invitations + 1 database page + 40 database-user lists, paced at 25/s.
    expect(log).toHaveLength(46);
    expect(took).toBeGreaterThan(1500);
  });
});

describe("activity event paging against a service that repeats boundary events", () => {
  let server: ScriptedServer;
  const key = "ra.TESTKEY1.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRST";

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await getClient({ baseUrl: server.url, apiKey: key, requestsPerSecond: 1000 }).close();
    await server.close();
  });

  const ev = (id: number, timestamp: number) => ({ id, timestamp, type: "USER_ADDED", userId: 1, organizationId: 7, description: "x", data: {} });
  const opts = () => ({ client: getClient({ baseUrl: server.url, apiKey: key, requestsPerSecond: 1000 }) });

  it("E10: a next page that begins at the boundary timestamp again repeats nothing", async () => {
    server.reset();
    const base = "/v1/organizations/7/events";
    server.expect(
      {
        method: "GET",
        path: `${base}?begin=0&end=100&limit=2`,
        reply: { status: 200, json: { data: [ev(1, 10), ev(2, 20), ev(3, 20)], links: { next: `${server.url}${base}?begin=20&end=100&limit=2` } } },
      },
      {
        method: "GET",
        path: `${base}?begin=20&end=100&limit=2`,
        // The boundary group again, then one more, and an event outside the range the service should not have sent.
        reply: { status: 200, json: { data: [ev(2, 20), ev(3, 20), ev(4, 30), ev(5, 100)], links: { next: null } } },
      },
    );
    const res = await data.getActivityEvents({ orgId: 7, begin: 0, end: 100, limit: 2 }, opts());
    expect(res.events.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(server.errors).toEqual([]);
    expect(server.pending).toBe(0);
  });

  it("E11: pages are followed and a repeated event appears once", async () => {
    server.reset();
    const base = "/v1/organizations/7/events/after";
    server.expect(
      {
        method: "GET",
        path: `${base}/0?limit=2`,
        reply: { status: 200, json: { data: [ev(1, 10), ev(2, 20)], links: { next: `${server.url}${base}/1?limit=2` } } },
      },
      {
        method: "GET",
        path: `${base}/1?limit=2`,
        reply: { status: 200, json: { data: [ev(2, 20), ev(3, 30)], links: { next: null } } },
      },
    );
    const res = await data.getActivityEvents({ orgId: 7, afterEventId: 0, limit: 2 }, opts());
    expect(res.events.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(res.lastEventId).toBe(3);
    expect(server.errors).toEqual([]);
  });
});
