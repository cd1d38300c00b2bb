export { loadConfig, type FathomConfig, type ProviderConfig } from './config';
export type { DocumentsSettings } from './documents-settings';
