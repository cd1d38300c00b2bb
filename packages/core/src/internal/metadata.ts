import { InvalidRequestError } from '../errors';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `metadata`: at most 16 string pairs, keys up to 64 characters, values up to 512. */
export function validateMetadata(raw: unknown, param = 'metadata'): Record<string, string> | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected an object of string values.`, param);
  const entries = Object.entries(raw);
  if (entries.length > 16) throw new InvalidRequestError(`Invalid '${param}': at most 16 keys are allowed.`, param);
  for (const [key, value] of entries) {
    if (key.length > 64)
      throw new InvalidRequestError(`Invalid '${param}': key '${key.slice(0, 20)}…' is longer than 64 characters.`, param);
    if (typeof value !== 'string') throw new InvalidRequestError(`Invalid '${param}.${key}': expected a string.`, `${param}.${key}`);
    if (value.length > 512) throw new InvalidRequestError(`Invalid '${param}.${key}': longer than 512 characters.`, `${param}.${key}`);
  }
  return raw as Record<string, string>;
}
