/** Reading `pulumi-reviewadmin doctor`'s report, for its tests (test/cli/doctor.test.ts, test/engine/doctor.test.ts). */

/** The environment variables the doctor reads its settings from. */
export const DOCTOR_ENV = [
  "REVIEWADMIN_API_KEY",
  "REVIEWADMIN_BASE_URL",
  "REVIEWADMIN_REQUESTS_PER_SECOND",
  "REVIEWADMIN_OPENAPI",
] as const;

/** The text of one labelled block of the report ("organizations", "can manage", ...), lines joined. */
export function section(out: string, name: string): string {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`  ${name.padEnd(14)}`));
  if (start < 0) return "";
  const rest = lines.slice(start + 1).findIndex((l) => !l.startsWith(" ".repeat(16)));
  return lines
    .slice(start, rest < 0 ? undefined : start + 1 + rest)
    .map((l) => l.trim())
    .join("\n");
}
