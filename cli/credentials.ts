/**
 * How the commands that read the live service (export, review) take their credentials: the API
 * key from an environment variable or a file (never the command line), the base URL and the
 * request rate. One module both import, so the two commands cannot drift apart.
 */
import * as fs from "node:fs";
import { positiveInt, UsageError, type Command } from "./command";

const DEFAULT_KEY_ENV = "REVIEWADMIN_API_KEY";

/** The options {@link credentials} reads, for the options of each command that takes them. */
export const credentialOptions: Command["options"] = {
  "api-key-env": { type: "string", value: "NAME", help: `environment variable holding the API key (default ${DEFAULT_KEY_ENV})` },
  "api-key-file": { type: "string", value: "FILE", help: "file holding the API key (instead of an environment variable)" },
  "base-url": { type: "string", value: "URL", help: "the region's API base URL (default REVIEWADMIN_BASE_URL)" },
  "requests-per-second": {
    type: "string",
    value: "N",
    help: "client request rate (default REVIEWADMIN_REQUESTS_PER_SECOND, else 25: the service's limit)",
  },
};

/** The key, the base URL and the request rate a command reads the service with. */
export interface Credentials {
  apiKey: string;
  baseUrl: string;
  requestsPerSecond?: number;
}

/** The key (from the environment variable or the file named), the base URL and the rate, or a UsageError saying what is missing. */
export function credentials(o: Parameters<Command["run"]>[0]): Credentials {
  const file = o["api-key-file"] as string | undefined;
  const envName = (o["api-key-env"] as string | undefined) ?? DEFAULT_KEY_ENV;
  if (file !== undefined && o["api-key-env"] !== undefined) throw new UsageError("give --api-key-env or --api-key-file, not both");
  let apiKey: string | undefined;
  if (file !== undefined) {
    try {
      apiKey = fs.readFileSync(file, "utf8").trim();
    } catch (err) {
      throw new UsageError(`cannot read the key file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!apiKey) throw new UsageError(`the key file ${file} is empty`);
  } else {
    apiKey = process.env[envName]?.trim();
    if (!apiKey) {
      throw new UsageError(
        `no API key: set ${envName}, or name a file that holds it with --api-key-file (never the key itself on the command line: it would stay in the shell's history)`,
      );
    }
  }
  const baseUrl = (o["base-url"] as string | undefined) ?? process.env.REVIEWADMIN_BASE_URL;
  if (!baseUrl)
    throw new UsageError("no base URL: set REVIEWADMIN_BASE_URL or pass --base-url https://<your region's API host> (keys are per region)");
  const requestsPerSecond = positiveInt("requests-per-second", o["requests-per-second"]);
  return { apiKey, baseUrl, ...(requestsPerSecond !== undefined ? { requestsPerSecond } : {}) };
}
