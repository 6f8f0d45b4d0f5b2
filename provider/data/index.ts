/**
 * Data sources: plain functions in the Pulumi style. Each `getX(args, opts?)` returns a Promise;
 * each `getXOutput(args, opts?)` takes pulumi Inputs and returns a pulumi Output. Credentials
 * come from `opts.client`, `opts.settings`, the `reviewadmin:*` stack config, or the
 * REVIEWADMIN_API_KEY / REVIEWADMIN_BASE_URL environment variables. They work in a Pulumi
 * program and in a plain Node script.
 */
export {
  settingsFromPulumiConfig,
  type DataSourceFn,
  type DataSourceOptions,
  type DataSourceOutputOptions,
  type OutputArgs,
  type OutputFn,
  type Plain,
} from "./dataSource";
export { DataSourceError, requiredRole } from "./dataSourceError";
export type { NameFilter } from "./argTypes.generated";
export * from "./account";
export * from "./databases";
export * from "./projects";
export * from "./members";
export * from "./billing";
export * from "./events";
export * from "./accessReview";
