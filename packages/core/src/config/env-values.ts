/**
 * Reading one setting from the environment. Every setting goes through these: an empty or missing
 * value means the default; anything else must parse, or the start stops with a message naming the
 * variable and the value.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export function parseBoolean(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got '${value}'.`);
}

export function parseNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`${name} must be a number, got '${value}'.`);
  return parsed;
}

export function parsePositiveInteger(value: string | undefined, fallback: number, name: string): number {
  const parsed = parseNumber(value, fallback, name);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer, got '${value}'.`);
  return parsed;
}

export function parsePositiveNumber(value: string | undefined, fallback: number, name: string): number {
  const parsed = parseNumber(value, fallback, name);
  if (!(parsed > 0)) throw new Error(`${name} must be a number > 0, got '${value}'.`);
  return parsed;
}

/** A number of at least `min` from `env[name]`, or `fallback` when unset. */
export function readNumber(env: Env, name: string, fallback: number, min = 0): number {
  const value = parseNumber(env[name], fallback, name);
  if (value < min) throw new Error(`${name} must be a number >= ${min}, got '${env[name]}'.`);
  return value;
}
