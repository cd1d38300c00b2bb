import { Agent, request as httpRequest } from 'node:http';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../src/body-limits';
import { DISCARD_LIMIT } from '../src/unread-body';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

const errorShape = {
  error: { message: expect.any(String), type: expect.any(String), param: expect.toSatisfy((v) => v === null || typeof v === 'string') },
};

/** A JSON array nested `depth` levels deep: `[[[...]]]`. */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Sends a raw HTTP request (any head, any body) and reads status, headers and body. */
function rawRequest(port: number, head: string, body = ''): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const [requestLine, ...headerLines] = head.split('\r\n');
    const [method, path] = requestLine!.split(' ');
    const headers = Object.fromEntries(headerLines.filter(Boolean).map((line) => line.split(/:\s*/, 2) as [string, string]));
    const call = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
    });
    call.on('error', reject);
    call.end(body);
  });
}

describe('hardening at the HTTP edge', () => {
  let server: TestFathom;
  let port: number;
  beforeAll(async () => {
    server = await startFathom({ start: false });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close({ keepData: false }));

  describe('authentication comes first', () => {
    it('answers 401, not 400, to an unauthenticated request with an unparsable or invalid body', async () => {
      const malformed = await server.request('/v1/vector_stores', {
        method: 'POST',
        apiKey: 'wrong',
        headers: { 'content-type': 'application/json' },
        body: '{"name": ',
      });
      expect(malformed.status).toBe(401);
      expect(await malformed.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
      const invalid = await server.request('/v1/vector_stores/vs_1/files', { method: 'POST', apiKey: 'wrong', json: {} });
      expect(invalid.status).toBe(401);
      const noKey = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 42 }),
      });
      expect(noKey.status).toBe(401);
    });

    it('answers 401 on multipart and streaming routes before reading their bodies', async () => {
      const form = new FormData();
      form.append('file', new Blob(['x']), 'a.txt');
      const upload = await server.request('/v1/files', { method: 'POST', apiKey: 'wrong', body: form });
      expect(upload.status).toBe(401);
      const noBoundary = await server.request('/v1/files', {
        method: 'POST',
        apiKey: 'wrong',
        headers: { 'content-type': 'multipart/form-data' },
        body: 'x',
      });
      expect(noBoundary.status).toBe(401);
      const stream = await server.request('/v1/chat/completions', {
        method: 'POST',
        apiKey: 'wrong',
        json: { model: 'x/y', messages: [{ role: 'user', content: 'hi' }], stream: true },
      });
      expect(stream.status).toBe(401);
      const tooLarge = await server.request('/v1/tools/maps', {
        method: 'POST',
        apiKey: 'wrong',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'x'.repeat(BODY_LIMITS.tools) }),
      });
      expect(tooLarge.status).toBe(401);
    });

    it('answers 401 to a wrong admin key whatever the body', async () => {
      const response = await server.request('/v1/admin/accounts', {
        method: 'POST',
        apiKey: server.apiKey,
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      expect(response.status).toBe(401);
    });
  });

  describe('deep, truncated and odd requests answer 4xx in the error shape', () => {
    it.each(['website-contacts', 'nl-data', 'maps'])('refuses a 50,000-deep JSON body on /v1/tools/%s with 400', async (tool) => {
      const response = await server.request(`/v1/tools/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"websites": ${nestedArrays(50_000)}, "query": ${nestedArrays(50_000)}}`,
      });
      expect(response.status).toBe(400);
      const body = await json<ErrorBody>(response);
      expect(body).toMatchObject(errorShape);
      expect(body.error.message).toMatch(/deeper than 128 levels/);
    });

    it('accepts nesting up to the limit', async () => {
      const response = await server.request('/v1/vector_stores', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"name": "deep", "metadata": {"note": "x"}, "extra": ${nestedArrays(126)}}`,
      });
      expect(response.status).toBe(200);
    });

    it('answers 400 to a multipart upload without a boundary', async () => {
      const response = await server.request('/v1/files', {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data' },
        body: 'file=abc',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject(errorShape);
    });

    it('answers 400 to a truncated multipart upload and keeps no file', async () => {
      const before = (await server.client.files.list()).data.length;
      for (const body of [
        '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello',
        '--XX\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhel',
        '--XX\r\nContent-Disposition: form-da',
      ]) {
        const response = await server.request('/v1/files', {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=XX' },
          body,
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject(errorShape);
      }
      expect((await server.client.files.list()).data.length).toBe(before);
    });

    it('answers 404 in the error shape for ids longer than 100 characters', async () => {
      for (const path of [`/v1/files/${'x'.repeat(150)}`, `/v1/vector_stores/vs_${'a'.repeat(5000)}/files/file-${'b'.repeat(300)}`]) {
        const response = await server.request(path);
        expect(response.status).toBe(404);
        const body = await json<ErrorBody>(response);
        expect(body).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });
        expect(body.error.message.length).toBeLessThan(300);
      }
    });

    it('answers 400 in the error shape to a malformed percent-encoding in the path', async () => {
      const response = await server.request('/v1/files/%E0%A4%A');
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_url' } });
    });

    it('answers a request head over the size limit in the error shape', async () => {
      const response = await rawRequest(port, `GET /v1/files/${'x'.repeat(20_000)} HTTP/1.1\r\nauthorization: Bearer ${server.apiKey}`);
      expect(response.status).toBe(431);
      expect(JSON.parse(response.body)).toMatchObject(errorShape);
    });
  });

  describe('request body limits per route family', () => {
    const cases: Array<[string, string, number]> = [
      ['/v1/vector_stores', 'documents', BODY_LIMITS.documents],
      ['/v1/tools/maps', 'tools', BODY_LIMITS.tools],
      ['/v1/assistants', 'assistants', BODY_LIMITS.assistants],
      ['/v1/embeddings', 'embeddings', BODY_LIMITS.embeddings],
      ['/v1/chat/completions', 'chat', BODY_LIMITS.chat],
      ['/v1/admin/accounts', 'admin', BODY_LIMITS.admin],
    ];
    it.each(cases)('answers 413 request_too_large above the limit of POST %s (%s)', async (path, _family, limit) => {
      const body = JSON.stringify({ name: 'x'.repeat(limit) });
      const response = await server.request(path, {
        method: 'POST',
        apiKey: path.startsWith('/v1/admin') ? server.adminKey : server.apiKey,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(413);
      const { error } = await json<ErrorBody>(response);
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
      expect(error.message).toContain(limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${limit / 1024} KiB`);
    });

    it('keeps metadata updates, cancels and deletes beside the chat routes at the default 1 MiB', async () => {
      const conversation = await json<{ id: string }>(await server.request('/v1/conversations', { method: 'POST', json: {} }));
      for (const path of [`/v1/conversations/${conversation.id}`, '/v1/responses/resp_x/cancel', '/v1/chat/completions/chatcmpl-x']) {
        const response = await server.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ metadata: { note: 'x'.repeat(BODY_LIMITS.default) } }),
        });
        expect(response.status, path).toBe(413);
        expect((await json<ErrorBody>(response)).error.message).toContain('1 MiB');
      }
      // Conversation items carry images inline like responses: they keep the chat limit.
      const items = await server.request(`/v1/conversations/${conversation.id}/items`, {
        method: 'POST',
        json: {
          items: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
          pad: 'x'.repeat(2 * 1024 * 1024),
        },
      });
      expect(items.status).toBe(200);
    });

    it('reads and discards the rest of a refused body and keeps the connection; a body declared over 64 MiB is not read', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const post = (path: string, body: Buffer | null, declared = body?.length ?? 0) =>
        new Promise<{ status: number; connection: unknown; reused: boolean }>((resolve, reject) => {
          const call = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path,
              agent,
              headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json', 'content-length': declared },
            },
            (response) => {
              response.resume();
              response.on('end', () =>
                resolve({ status: response.statusCode!, connection: response.headers.connection, reused: call.reusedSocket }),
              );
            },
          );
          call.on('error', reject);
          if (body) call.end(body);
          else call.flushHeaders();
        });
      const twoMiB = Buffer.from(JSON.stringify({ metadata: { note: 'x'.repeat(2 * 1024 * 1024) } }));
      const refused = await post('/v1/conversations/conv_missing', twoMiB);
      expect(refused.status).toBe(413);
      expect(refused.connection).not.toBe('close');
      // The same connection serves the next request: nothing of the refused body was left unread on it.
      const next = await post('/v1/conversations', Buffer.from('{}'));
      expect(next).toMatchObject({ status: 200, reused: true });
      const huge = await post('/v1/conversations/conv_missing', null, DISCARD_LIMIT + 1);
      expect(huge).toMatchObject({ status: 413, connection: 'close' });
      agent.destroy();
    });

    it('refuses a 30 MiB vector store body (it used to be stored as a 30 MB name)', async () => {
      const response = await server.request('/v1/vector_stores', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'n'.repeat(30 * 1024 * 1024) }),
      });
      expect(response.status).toBe(413);
      expect((await server.client.vectorStores.list()).data.some((store) => (store.name ?? '').length > 1000)).toBe(false);
    });

    it('accepts a chat body with a large inline image under its limit (checked by the body limit, not refused as too large)', async () => {
      const image = `data:image/png;base64,${Buffer.alloc(10 * 1024 * 1024, 1).toString('base64')}`;
      const response = await server.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'nobody/none', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }] },
      });
      expect(response.status).not.toBe(413);
      expect(response.status).toBeLessThan(500);
    });
  });

  describe('x-content-type-options: nosniff on every answer', () => {
    it('is sent with JSON answers, errors of every kind and file downloads', async () => {
      const file = await server.client.files.create({ file: await toFile(Buffer.from('<html>'), 'page.html'), purpose: 'assistants' });
      const answers = [
        await server.request('/v1/files'),
        await server.request(`/v1/files/${file.id}/content`),
        await server.request('/v1/files', { apiKey: 'wrong' }),
        await server.request('/v1/no/such/route'),
        await server.request('/v1/files/%E0%A4%A'),
        await server.request('/v1/vector_stores', { method: 'POST', json: { name: 42 } }),
        await server.request('/v1/admin/accounts', {
          method: 'POST',
          apiKey: server.adminKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x'.repeat(BODY_LIMITS.admin) }),
        }),
        await fetch(`${server.url}/health`),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 404, 400, 400, 413, 200]);
      for (const answer of answers) expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const refusedHead = await rawRequest(port, `GET /v1/files/${'x'.repeat(20_000)} HTTP/1.1`);
      expect(refusedHead.status).toBe(431);
      expect(refusedHead.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('downloads of files with any name', () => {
    it('answers GET /v1/files/{id}/content with RFC 6266 filename* for non-Latin-1 and control characters', async () => {
      for (const [name, ascii] of [
        ['日本語.txt', '___.txt'],
        ['naïve résumé.md', 'naive resume.md'],
        ['tab\there\u0007.txt', 'tab_here_.txt'],
        ['emoji 📄.txt', 'emoji _.txt'],
      ] as const) {
        const file = await server.client.files.create({ file: await toFile(Buffer.from('content'), name), purpose: 'assistants' });
        expect(file.filename).toBe(name);
        const response = await server.request(`/v1/files/${file.id}/content`);
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('content');
        const disposition = response.headers.get('content-disposition')!;
        expect(disposition).toContain(`filename="${ascii}"`);
        expect(disposition).toContain(
          `filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
        );
        const encoded = /filename\*=UTF-8''(.+)$/.exec(disposition)![1]!;
        expect(decodeURIComponent(encoded)).toBe(name);
      }
    });

    it('keeps a plain ASCII name as a plain filename', async () => {
      const file = await server.client.files.create({ file: await toFile(Buffer.from('x'), 'report-2026.txt'), purpose: 'assistants' });
      const response = await server.request(`/v1/files/${file.id}/content`);
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="report-2026.txt"');
    });
  });
});
