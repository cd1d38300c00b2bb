import { InvalidRequestError } from '../errors';
import { codePoints, FIELD_LIMITS } from './field-limits';

const { metadataKeys, metadataKey, metadataValue } = FIELD_LIMITS;

/** Whether `text` has more than `max` characters (code points; the UTF-16 length is an upper bound). */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && codePoints(text) > max;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `metadata`: at most 16 string pairs, keys up to 64 characters, values up to 512 (characters are code
 * points: 512 emoji are a valid value).
 */
export function validateMetadata(raw: unknown, param = 'metadata'): Record<string, string> | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected an object of string values.`, param);
  const entries = Object.entries(raw);
  if (entries.length > metadataKeys) throw new InvalidRequestError(`Invalid '${param}': at most ${metadataKeys} keys are allowed.`, param);
  for (const [key, value] of entries) {
    if (longerThan(key, metadataKey))
      throw new InvalidRequestError(`Invalid '${param}': key '${key.slice(0, 20)}…' is longer than ${metadataKey} characters.`, param);
    if (typeof value !== 'string') throw new InvalidRequestError(`Invalid '${param}.${key}': expected a string.`, `${param}.${key}`);
    if (longerThan(value, metadataValue))
      throw new InvalidRequestError(`Invalid '${param}.${key}': longer than ${metadataValue} characters.`, `${param}.${key}`);
  }
  return raw as Record<string, string>;
}
