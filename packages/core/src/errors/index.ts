export { FathomError, type FathomErrorOptions } from './fathom-error';
export * from './errors';
