/**
 * The contract's types without zod: the module published declarations import. zod 4's own
 * declarations fail to type-check in a consumer compiled without esModuleInterop (the classic
 * `pulumi new typescript` tsconfig), so no public signature may mention a schema. The entity
 * types and the operation map are generated from the schemas and the route table
 * (types.generated.ts, `npm run generate`); the helpers below read the map.
 */
import type { Operations } from "./types.generated";

export * from "./types.generated";

/** An operation id. */
export type OperationId = keyof Operations;
/** Parameters (path and query) an operation takes, as a caller writes them. */
export type ParamsOf<K extends OperationId> = Operations[K]["params"];
/** The JSON body an operation takes (never for GET, FormData for E5's multipart upload). */
export type BodyOf<K extends OperationId> = Operations[K]["body"];
/** The `data` a successful response carries. */
export type DataOf<K extends OperationId> = Operations[K]["data"];
/** Parameters (path and query) of an operation as a server has them once its schema parsed them: ids as numbers. */
export type ParsedParamsOf<K extends OperationId> = Operations[K]["parsedParams"];
/** The JSON body of an operation as a server has it once its schema parsed it (never when it takes none, or multipart). */
export type ParsedBodyOf<K extends OperationId> = Operations[K]["parsedBody"];
/** The element type of a paged list operation. */
export type ItemOf<K extends OperationId> = DataOf<K> extends readonly (infer T)[] ? T : never;
