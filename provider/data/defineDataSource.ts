/**
 * One shape for every data source, the twin of `defineResource`: a data source declares its
 * name, its arguments' schema and its read; `defineDataSource` does the rest. Apart from
 * dataSource.ts because it names zod types, which published declarations must not import: the
 * data source modules import it for their implementation only (their exports are typed with
 * `DataSourceFn` and the generated argument types).
 */
import type { z } from "zod";
import type { CallOptions, ReviewAdminClient } from "../client";
import { parseArgs } from "./args";
import { callOptions, clientFor, type DataSourceFn, type DataSourceOptions } from "./dataSource";
import { readFailure, reading, type DataSourceError } from "./dataSourceError";

/** What a data source's `read` gets besides its parsed arguments. */
export interface ReadContext {
  /** The data source's name (`getOrganization`), which starts every message. */
  readonly name: string;
  /** The client: `opts.client`, or one built from settings, config or the environment (clientFor). */
  readonly client: ReviewAdminClient;
  /** The options of every request: the read's abort signal. */
  readonly callOptions: CallOptions;
  /** Runs one read; a failure becomes the DataSourceError `<name>: reading <what>: <cause>`. */
  reading<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** The DataSourceError `<name>: reading <what>: <cause>`, for a read that handles some failures itself. */
  readFailure(what: string, err: unknown): DataSourceError;
}

/** A data source as declared: its name, its arguments' schema, and what it reads. */
export interface DataSourceDefinition<S extends z.ZodObject, R> {
  /** The function's name as users call it (`getOrganization`). */
  name: string;
  /** The strict schema of its arguments, tagged `@inputType` for argTypes.generated.ts. */
  args: S;
  /** Reads with the parsed arguments. */
  read(args: z.output<S>, ctx: ReadContext): Promise<R>;
}

/**
 * The Promise form of a data source (the twin of `defineResource`): parses the arguments before
 * anything is sent, finds the client, and words every failure with the data source's name, so a
 * data source declares only its schema and its read. Its Output form is `outputForm(fn)`. The
 * caller types the result with the generated argument type (`DataSourceFn<GetXArgs, GetXResult>`):
 * published declarations never name a zod schema.
 */
export function defineDataSource<S extends z.ZodObject, R>(definition: DataSourceDefinition<S, R>): DataSourceFn<z.input<S>, R> {
  const { name } = definition;
  const fn = async (args?: unknown, opts?: DataSourceOptions): Promise<R> => {
    const parsed = parseArgs(name, definition.args, args);
    const client = clientFor(name, opts);
    return definition.read(parsed, {
      name,
      client,
      callOptions: callOptions(opts),
      reading: (what, read) => reading(name, what, read),
      readFailure: (what, err) => readFailure(name, what, err),
    });
  };
  // Stack traces and `fn.name` say `getOrganization`, as they did for the hand-written functions.
  Object.defineProperty(fn, "name", { value: name });
  return fn as DataSourceFn<z.input<S>, R>;
}
