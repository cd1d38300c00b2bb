import { describe, expect, it } from 'vitest';
import { requestEmbeddings } from '../embeddings/openai-embedder';
import { UpstreamError } from '../errors';
import { providerJson } from '../jobs/sources/provider-request';
import { UpstreamClient } from '../models/upstream-client';
import { createTestServer, respond } from '../test/test-server';
import { delay } from './delay';
import { retryWithBackoff } from './retry';
import { statusError, transportError } from './upstream-errors';

describe('the outbound transport', () => {
  it('maps failures the same way whoever calls: 429 stays 429, 5xx and bad keys answer 502, timeouts 504', () => {
    const limited = statusError('X', 'http://x', 429, '{"error":{"message":"slow down"}}', { 'retry-after': '2' });
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded', isRetryable: true, retryAfterMs: 2000 });
    expect(limited.message).toBe('X answered HTTP 429: slow down');
    expect(statusError('X', 'u', 503, 'busy')).toMatchObject({ status: 502, isRetryable: true });
    expect(statusError('X', 'u', 401, 'bad key')).toMatchObject({ status: 502, isRetryable: false });
    expect(statusError('X', 'u', 404, 'nope')).toMatchObject({ status: 404, isRetryable: false });
    expect(transportError(Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'provider x', 'u')).toMatchObject({
      status: 504,
      code: 'timeout',
    });
    expect(transportError(Object.assign(new Error('r'), { code: 'ECONNREFUSED' }), 'provider x', 'u')).toMatchObject({
      status: 502,
      isRetryable: true,
    });
  });

  it('retries retryable failures with backoff, honours retry-after, and stops at once when aborted', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    let calls = 0;
    const value = await retryWithBackoff(
      async () => {
        calls++;
        if (calls === 1) throw statusError('X', 'u', 429, '', { 'retry-after': '3' });
        if (calls === 2) throw statusError('X', 'u', 500, '');
        return 'done';
      },
      { maxRetries: 3, initialDelayMs: 100, sleep },
    );
    expect(value).toBe('done');
    expect(waits).toEqual([3000, 200]);
    await expect(retryWithBackoff(async () => Promise.reject(statusError('X', 'u', 400, 'bad')), { sleep })).rejects.toMatchObject({
      status: 400,
    });

    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(delay(10_000, controller.signal)).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives the same error for the same upstream answer to a model provider, the embedder and a data source', async () => {
    const server = await createTestServer({
      'POST /v1/chat/completions': (_request, response) => respond.json(response, 429, { error: { message: 'too many' } }),
      'POST /v1/embeddings': (_request, response) => respond.json(response, 429, { error: { message: 'too many' } }),
      'POST /v1/source': (_request, response) => respond.json(response, 429, { error: { message: 'too many' } }),
    });
    try {
      const provider = new UpstreamClient({ baseUrl: `${server.url}/v1`, name: 'fake' });
      const errors = await Promise.all([
        provider.request('POST', '/chat/completions', {}).catch((error) => error),
        requestEmbeddings({ baseURL: `${server.url}/v1`, model: 'm', maxAttempts: 1 }, ['x']).catch((error) => error),
        providerJson(undefined, `${server.url}/v1/source`, { provider: 'Source', json: {} }).catch((error) => error),
      ]);
      await provider.close();
      for (const error of errors) {
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({ status: 429, statusCode: 429, code: 'rate_limit_exceeded', isRetryable: true });
        expect(error.message).toContain('answered HTTP 429: too many');
      }
    } finally {
      await server.close();
    }
  });
});
