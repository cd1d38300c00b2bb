// The one outbound HTTP layer for configured upstreams (model providers, embeddings, data sources):
// abortable waits, retries with backoff, one mapping of failures to UpstreamError. Calls to
// user-chosen URLs go through the egress guard instead, which uses the same waits and retries.
export { delay } from './delay';
export { retryWithBackoff, type RetryOptions } from './retry';
export { isNetworkFailure, retryAfterMs, statusError, transportError, upstreamMessage } from './upstream-errors';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
  openRequest,
  type OutboundBody,
  type OutboundRequest,
  type OutboundResponse,
  requestJson,
  requestText,
} from './request';
