/** `pulumi-reviewadmin emulator`: runs the local emulator of the API until Ctrl-C (emulator/serve.ts does the work). */
import { DESCRIPTION, EMULATOR_OPTIONS, EXAMPLES, serve, UsageError as EmulatorUsageError } from "../emulator/serve";
import { UsageError, type Command, type OptionSpec } from "./command";

/** The emulator's options, each help line naming its environment variable. */
const options: Record<string, OptionSpec> = Object.fromEntries(
  Object.entries(EMULATOR_OPTIONS).map(([name, o]) => [name, { ...o, help: `${o.help} [${o.env}]` }]),
);

/** The emulator command (see its description). */
export const emulator: Command = {
  name: "emulator",
  summary: "run the local emulator of the API (seeded world, keys, control API)",
  description: DESCRIPTION,
  options,
  examples: EXAMPLES,
  async run(values, io) {
    try {
      return await serve(values, io);
    } catch (err) {
      // The emulator words its own usage errors; main() prints ours as one line with a pointer to --help.
      if (err instanceof EmulatorUsageError) throw new UsageError(err.message);
      throw err;
    }
  },
};
