import { afterAll, describe, expect, it } from 'vitest';
import { createTestServer, respond, type TestServer } from '../test';
import { currentTraceparent, tracer } from './tracing';

/** A collector that accepts OTLP/HTTP trace exports. */
const collector = () => createTestServer({ 'POST /v1/traces': (_request, response) => respond.json(response, 200, {}) });

/** Makes one span named `name` and flushes it to wherever tracing sends spans now. */
async function emit(name: string): Promise<string | null> {
  const traceparent = tracer.get().startActiveSpan(name, (span) => {
    const inside = currentTraceparent();
    span.end();
    return inside;
  });
  await tracer.flush();
  return traceparent;
}

const collectors: TestServer[] = [];
afterAll(async () => {
  await tracer.shutdown();
  await Promise.all(collectors.map((server) => server.close()));
});

describe('tracing of a process', () => {
  it('is off after shutdown, and a later start sends spans to its own endpoint, not the first one', async () => {
    const first = await collector();
    const second = await collector();
    collectors.push(first, second);

    await tracer.start({ OTEL_EXPORTER_OTLP_ENDPOINT: first.url });
    expect(tracer.enabled).toBe(true);
    expect(await emit('first')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(first.requests.map((request) => request.path)).toEqual(['/v1/traces']);

    await tracer.shutdown();
    expect(tracer.enabled).toBe(false);
    // Off: no span, no traceparent to store with queued work, nothing exported.
    expect(await emit('while off')).toBeNull();

    await tracer.start({ OTEL_EXPORTER_OTLP_ENDPOINT: second.url });
    expect(tracer.enabled).toBe(true);
    await emit('second');
    expect(second.requests.map((request) => request.path)).toEqual(['/v1/traces']);
    expect(first.requests).toHaveLength(1);
  });
});
