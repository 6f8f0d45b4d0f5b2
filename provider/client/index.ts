/** The admin API's HTTP client: one class, its options, its errors, and the process-wide getClient. */
export { ReviewAdminClient, getClient, type AnswerRead, type ClientStats, type CallOptions, type PageItemOf } from "./client";
export type { ClientOptions } from "./options";
export {
  ApiError,
  ClientClosedError,
  ClientConfigError,
  InsecureUrlError,
  NetworkError,
  ParameterError,
  ResponseValidationError,
  ReviewAdminError,
  TimeoutError,
  type RequestContext,
} from "./errors";
export { isLoopbackHost } from "./security";
export type { Clock } from "./clock";
export { DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, backoffMs, type RetryPolicy } from "./retry";
