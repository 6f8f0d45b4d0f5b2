/**
 * Data sources inside a Pulumi program run by the real engine: Output forms taking Inputs from
 * other outputs, credentials from stack config only, and dependsOn.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "../../provider/client";
import * as data from "../../provider/data";
import * as reviewadmin from "../../provider";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { skipWithoutEngine } from "../support/engine";

const repoRoot = path.resolve(__dirname, "../..");

describe("data sources in a Pulumi program", () => {
  skipWithoutEngine("test/engine/dataSources.test.ts");
  let emu: RunningEmulator;
  let stack: EngineStack;
  const saved = { ...process.env };

  beforeAll(async () => {
    emu = await startEmulator({ rateLimit: 0 });
    // Only stack config may supply credentials here.
    delete process.env.REVIEWADMIN_API_KEY;
    delete process.env.REVIEWADMIN_BASE_URL;
    stack = new EngineStack({
      cwd: repoRoot,
      project: "data-sources",
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin },
      secretConfigKeys: ["reviewadmin:apiKey"],
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
      const org = data.getOrganizationOutput({ organizationId: SEEDED.org });
      // An input that is another data source's output.
      const members = data.getOrganizationMembersOutput({ organizationId: org.id, permission: "ORG_ADMIN" });
      const events = data.getActivityEventsOutput({ organizationId: org.id, recent: true, limit: 5 });
      // A resource the engine creates (a grant): the access matrix must wait for it.
      const marker = new reviewadmin.DatabaseUserPermissions("marker", {
        databaseId: SEEDED.databases.open,
        userId: SEEDED.users.member,
        permissions: ["DB_UPLOAD"],
      });
      const matrix = data.getAccessMatrixOutput({ organizationId: org.id }, { dependsOn: marker });
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
    // Only the access matrix reads invitations: it started after the marker's grant was written.
    const log = emu.traffic.log.list();
    const invitationReads = log.filter((e) => e.operation === "GetOrganizationInvitations");
    const markerWrite = log.find((e) => e.operation === "PutDatabaseUser");
    expect(invitationReads).toHaveLength(1);
    expect(markerWrite).toBeDefined();
    expect(invitationReads[0]!.seq).toBeGreaterThan(markerWrite!.seq);
  });
});
