/**
 * `pulumi-reviewadmin state`: reading a stack's state offline. Its one subcommand, `state show`
 * (state/showCommand.ts), prints what a stack declares from `pulumi stack export` output.
 */
import { UsageError, type Command } from "./command";

/** The state command: a word for its subcommands. */
export const stateCommand: Command = {
  name: "state",
  summary: "print what a stack declares (each roster and per-person resource, its settings and people) from `pulumi stack export`, offline",
  description: `
Reads a stack's state offline, with no credential and no request to the service.

Subcommands:
  show    print what the stack declares: each resource of this package (kind, name, scope, mode,
          settings) and each person it declares, with their permissions and end dates
          (pulumi-reviewadmin state show --help)`,
  options: {},
  subcommands: {
    show: async () => (await import("./state/showCommand.js")).stateShowCommand,
  },
  examples: ["pulumi stack export --stack prod | pulumi-reviewadmin state show --stack-state -"],
  run() {
    return Promise.reject(new UsageError("give a subcommand: show"));
  },
};
