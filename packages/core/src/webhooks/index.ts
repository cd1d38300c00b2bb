export { WebhookToolkit } from './webhook-toolkit';
export { SlidingWindowRateLimiter, RATE_WINDOW_MS, type RateLimiter } from './rate-limiter';
export { SqlRateLimiter, type SqlRateLimiterOptions } from './sql-rate-limiter';
export { webhooksSchema } from './schema';
export { sanitizeToolName, MAX_TOOL_NAME_LENGTH } from './sanitize-name';
export { compileCards, type CompileResult } from './compile-card';
export { placeholderNames } from './render-template';
export {
  WEBHOOK_CARD_LIMITS,
  WebhookAuth,
  WebhookCard,
  WebhookCardConfig,
  WebhookMethod,
  WebhookParameter,
  WebhookParameterType,
  WebhookRoute,
} from './wire/webhook-card';
export type {
  CompiledWebhookTool,
  WebhookExecuteOptions,
  WebhookToolCollision,
  WebhookToolSchema,
  WebhookToolkitOptions,
} from './types';
