export { loadConfig, type FathomConfig, type ProviderConfig } from './config';
export { parseModelAliases, resolveModelAlias, type ModelAliasConfig } from './model-aliases';
export { parseBoolean, parseNumber, parsePositiveInteger, parsePositiveNumber, readNumber, type Env } from './env-values';
export { readJobSettings, toolVariable, type JobSettings } from './tools-settings';
export { readBatchSettings, type BatchSettings } from './batch-settings';
export type { DocumentsSettings } from './documents-settings';
export { parseMcpServers, type McpServerConfig } from './mcp-servers';
export { parseModelPrices, priceOf, type ModelPrice, type ModelPriceConfig } from './model-prices';
export type { VectorSettings } from './vector-settings';
