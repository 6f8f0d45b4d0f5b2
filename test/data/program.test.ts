/**
 * Data sources inside a Pulumi program: Output forms taking Inputs from other outputs,
 * credentials from stack config only, and dependsOn.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "../../provider/client";
import * as data from "../../provider/data";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { ProgramStack } from "../../harness/program/stack";

const repoRoot = path.resolve(__dirname, "../..");

/** A custom resource the mocks "create" once the program's other reads are done (see the mocks below). */
class Marker extends pulumi.CustomResource {
  constructor(name: string) {
    super("test:index:Marker", name, {});
  }
}

describe("data sources in a Pulumi program", () => {
  let emu: RunningEmulator;
  let stack: ProgramStack;
  const saved = { ...process.env };
  /** Settles when the reads that do not wait for the marker are done; set by the program. */
  let readsNotWaitingForMarker: Promise<void> | undefined;
  let markerCreatedAt = 0;
  let invitationReadsBeforeMarker = -1;

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
        // The marker is created only after the reads that do not depend on it have finished: a
        // read that ignored dependsOn would start with them, and show in the log before it.
        newResource: async (args) => {
          await readsNotWaitingForMarker;
          invitationReadsBeforeMarker = emu.traffic.log.list("GetOrganizationInvitations").length;
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
      const org = data.getOrganizationOutput({ organizationId: SEEDED.org });
      // An input that is another data source's output.
      const members = data.getOrganizationMembersOutput({ organizationId: org.id, permission: "ORG_ADMIN" });
      const events = data.getActivityEventsOutput({ organizationId: org.id, recent: true, limit: 5 });
      readsNotWaitingForMarker = new Promise((resolve) => pulumi.all([members.emails, events.events]).apply(() => resolve()));
      const marker = new Marker("marker");
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
    // Only the access matrix reads invitations: it started after the marker was created.
    expect(invitationReadsBeforeMarker).toBe(0);
    const invitationReads = emu.traffic.log.list("GetOrganizationInvitations");
    expect(invitationReads).toHaveLength(1);
    expect(markerCreatedAt).toBeGreaterThan(0);
    expect(Date.parse(invitationReads[0].time)).toBeGreaterThanOrEqual(markerCreatedAt - 1);
  });
});
