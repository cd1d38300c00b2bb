import type { Readable } from 'node:stream';

/** Reads at most `maxBytes` of a body, then stops reading (the rest is never downloaded). */
export async function readLimited(body: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/** undici's header object (values string or string[]) as a flat lowercase record. */
export function toHeaderRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}
