import { InvalidRequestError } from '../errors';

/** A parsed `<vendor>/<model_name>` identifier. */
export interface ModelId {
  vendor: string;
  /** Everything after the first `/`, sent upstream as the model name (may itself contain `/`). */
  model: string;
}

/**
 * Splits `<vendor>/<model_name>` and checks the vendor is configured. A malformed id or an unknown
 * vendor answers 400 listing the configured vendors.
 */
export function parseModelId(id: unknown, vendors: readonly string[], param = 'model'): ModelId {
  const list = vendors.length ? vendors.map((vendor) => `'${vendor}'`).join(', ') : '(none configured)';
  if (typeof id !== 'string' || !id) {
    throw new InvalidRequestError(
      `Missing required parameter: '${param}'. Use '<vendor>/<model_name>'; configured vendors: ${list}.`,
      param,
      'model_not_found',
    );
  }
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) {
    throw new InvalidRequestError(
      `Invalid '${param}': '${id}' is not of the form '<vendor>/<model_name>'. Configured vendors: ${list}.`,
      param,
      'model_not_found',
    );
  }
  const vendor = id.slice(0, slash);
  if (!vendors.includes(vendor)) {
    throw new InvalidRequestError(
      `Invalid '${param}': unknown vendor '${vendor}' in '${id}'. Configured vendors: ${list}.`,
      param,
      'model_not_found',
    );
  }
  return { vendor, model: id.slice(slash + 1) };
}
