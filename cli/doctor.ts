/** `pulumi-reviewadmin doctor`: is this key, at this base URL, ready for the provider? Read-only. */
import { diagnose } from "./doctor/diagnose";
import { formatReport } from "./doctor/report";
import type { Command } from "./command";

/** The doctor command (see its description). */
export const doctor: Command = {
  name: "doctor",
  summary: "check the API key and base URL: who the key is, what it can manage, what is wrong",
  description: `
Checks the configured API key against the configured base URL with read-only calls, and says in
a few lines: who the key acts as, which organizations it sees and its role in each (org admin,
parent org admin, member), which databases it administers, what each resource kind will be able
to do with it, the rate-limit budget, and whether every route answered as expected. Each problem
comes with its fix: a key another region does not know, a key disabled after 90 days unused, a
base URL where something else answers, a missing role.

It never writes anything and never prints the key: only its middle part, the key id the web
application shows. Settings come from REVIEWADMIN_API_KEY, REVIEWADMIN_BASE_URL,
REVIEWADMIN_REQUESTS_PER_SECOND and REVIEWADMIN_OPENAPI (the vendor's OpenAPI document, when the
routes come from it: see \`pulumi-reviewadmin routes --openapi\`). To check a stack's settings:

  REVIEWADMIN_API_KEY=$(pulumi config get reviewadmin:apiKey) \\
  REVIEWADMIN_BASE_URL=$(pulumi config get reviewadmin:baseUrl) npx pulumi-reviewadmin doctor

(and REVIEWADMIN_OPENAPI=$(pulumi config get reviewadmin:openapi) when the stack sets it).

Exit code 0 when the key can be used (warnings may remain), 1 when a problem blocks use (no key,
a key the service refuses, a base URL where the API does not answer, no admin right anywhere).`,
  options: {
    json: { type: "boolean", help: "print the findings as JSON (same exit code)" },
    "base-url": { type: "string", value: "URL", help: "use this base URL instead of REVIEWADMIN_BASE_URL (e.g. to try another region)" },
    "custodians-only": {
      type: "boolean",
      help: "the key is for CustodianDirectorySync only (LEGAL_HOLD_ADMIN, which only org admins can read): a member key passes with a warning",
    },
  },
  examples: [
    "npx pulumi-reviewadmin doctor",
    "npx pulumi-reviewadmin doctor --base-url https://<other region's API host>",
    "npx pulumi-reviewadmin doctor --json | jq .problems",
  ],
  async run(options, io) {
    const report = await diagnose({
      baseUrl: options["base-url"] as string | undefined,
      custodiansOnly: options["custodians-only"] === true,
    });
    io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report));
    return report.ok ? 0 : 1;
  },
};
