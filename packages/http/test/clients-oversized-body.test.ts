/**
 * A JSON body over a route's limit, sent by the official openai SDK (undici sends its whole body
 * before it reads the answer), to a server in its own process: the SDK raises APIError 413 with the
 * message, never APIConnectionError, and the connection it kept alive serves the next request.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../src/body-limits';
import { startServeProcess, type ServeProcess } from './serve-process';

let server: ServeProcess;
beforeAll(async () => {
  server = await startServeProcess();
}, 90_000);
afterAll(() => server?.stop());

const MiB = 1024 * 1024;

describe('an oversized JSON body through the openai SDK', () => {
  it('raises APIError 413 request_too_large with the limit, every time, and the next request works', async () => {
    const { client } = server;
    const conversation = await client.conversations.create({});
    const attempts: Array<[string, () => Promise<unknown>, number]> = [
      ['vector store create', () => client.vectorStores.create({ name: 'x'.repeat(30 * MiB) }), BODY_LIMITS.documents],
      [
        'conversation update',
        () => client.conversations.update(conversation.id, { metadata: { note: 'x'.repeat(30 * MiB) } }),
        BODY_LIMITS.default,
      ],
      ['data tool', () => client.post('/tools/maps', { body: { query: 'x'.repeat(20 * MiB) } }), BODY_LIMITS.tools],
    ];
    for (let round = 0; round < 5; round++) {
      for (const [what, call, limit] of attempts) {
        const error = await call().then(
          () => null,
          (caught) => caught,
        );
        expect(error, `${what}, round ${round}: ${error?.constructor?.name} ${error?.message}`).toBeInstanceOf(OpenAI.APIError);
        expect(error).not.toBeInstanceOf(OpenAI.APIConnectionError);
        expect(error.status).toBe(413);
        expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
        expect(error.message).toContain(`${limit / MiB} MiB`);
        expect(Array.isArray((await client.vectorStores.list()).data)).toBe(true);
      }
    }
  });
});
