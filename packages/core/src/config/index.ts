export { loadConfig, type FathomConfig, type ProviderConfig } from './config';
