export { WebhookToolkit } from './webhook-toolkit';
export { sanitizeToolName, MAX_TOOL_NAME_LENGTH } from './sanitize-name';
export type { CompileResult } from './compile-card';
export type {
  CompiledWebhookTool,
  WebhookAuth,
  WebhookCard,
  WebhookCardConfig,
  WebhookExecuteOptions,
  WebhookMethod,
  WebhookParameter,
  WebhookRoute,
  WebhookToolCollision,
  WebhookToolSchema,
  WebhookToolkitOptions,
} from './types';
