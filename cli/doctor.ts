/** `pulumi-reviewadmin doctor`: is this key, at this base URL, ready for the provider? Read-only. */
import { diagnose } from "./doctor/diagnose";
import { formatReport } from "./doctor/report";
import { UsageError, type Command } from "./command";
import { readStackConfig } from "./doctor/stackConfig";

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
application shows. Settings come as they come to \`pulumi up\`: in a Pulumi project, from the
selected stack's config (reviewadmin:apiKey, :baseUrl, :requestsPerSecond, :openapi, read with
the Pulumi CLI, secrets decrypted), or the stack --stack names; then from REVIEWADMIN_API_KEY,
REVIEWADMIN_BASE_URL, REVIEWADMIN_REQUESTS_PER_SECOND and REVIEWADMIN_OPENAPI (the vendor's
OpenAPI document, when the routes come from it: see \`pulumi-reviewadmin routes --openapi\`). The
report says where each setting came from; --env reads the environment variables only.

Exit code 0 when the key can be used (warnings may remain), 1 when a problem blocks use (no key,
a key the service refuses, a base URL where the API does not answer, no admin right anywhere).`,
  options: {
    json: { type: "boolean", help: "print the findings as JSON (same exit code)" },
    stack: { type: "string", value: "NAME", help: "read this stack's config (default: the selected stack of the Pulumi project here)" },
    env: { type: "boolean", help: "read only the REVIEWADMIN_* environment variables, not a stack's config" },
    cwd: { type: "string", value: "DIR", help: "the Pulumi project's folder (default: the current folder)" },
    "base-url": { type: "string", value: "URL", help: "use this base URL instead of REVIEWADMIN_BASE_URL (e.g. to try another region)" },
    "custodians-only": {
      type: "boolean",
      help: "the key is for CustodianDirectorySync only (LEGAL_HOLD_ADMIN, which only org admins can read): a member key passes with a warning",
    },
  },
  examples: [
    "npx --no-install pulumi-reviewadmin doctor                 # in the project folder, after pulumi config set",
    "npx --no-install pulumi-reviewadmin doctor --stack prod",
    "npx --no-install pulumi-reviewadmin doctor --base-url https://<other region's API host>",
    "npx --no-install pulumi-reviewadmin doctor --json | jq .problems",
  ],
  async run(options, io) {
    if (options.env === true && options.stack !== undefined) throw new UsageError("--env and --stack do not go together");
    const read =
      options.env === true
        ? { none: "--env" }
        : readStackConfig({ stack: options.stack as string | undefined, cwd: options.cwd as string | undefined });
    if ("error" in read) throw new UsageError(`--stack ${options.stack}: ${read.error}`);
    const report = await diagnose({
      baseUrl: options["base-url"] as string | undefined,
      custodiansOnly: options["custodians-only"] === true,
      ...("found" in read ? { stack: read.found } : {}),
    });
    report.stack = "found" in read ? { name: read.found.stack } : { none: read.none };
    io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report));
    return report.ok ? 0 : 1;
  },
};
