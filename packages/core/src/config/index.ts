export { loadConfig, type FathomConfig, type ProviderConfig } from './config';
export { parseModelAliases, resolveModelAlias, type ModelAliasConfig } from './model-aliases';
