import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { UpstreamError } from '../errors';
import { silentLogger, type Logger } from '../internal/logger';
import { createTestServer, respond, type TestServer } from '../test';
import { createEmbedder } from './create-embedder';
import { describeEmbedderConformance } from './embedder-conformance';
import { HashEmbedder } from './hash-embedder';
import { OpenAICompatibleEmbedder } from './openai-embedder';
import { writeTinyModel } from '../test/tiny-model';
import { TransformersEmbedder } from './transformers-embedder';

const modelsDir = mkdtempSync(join(tmpdir(), 'fathom-models-'));
const tinyModelId = writeTinyModel(modelsDir);
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(modelsDir, { recursive: true, force: true });
});

/** A local stand-in for an OpenAI-compatible /v1/embeddings: vectors come from the hash embedder, unnormalised. */
async function fakeEmbeddingsServer(): Promise<TestServer> {
  const reference = new HashEmbedder({ dimensions: 64 });
  const server = await createTestServer({
    'POST /v1/embeddings': (request, response) => {
      const input: string[] = request.json.input;
      const data = input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from(reference.embedOne(text), (v) => v * 3),
      }));
      // Out of order on purpose: clients must use `index`.
      respond.json(response, 200, { object: 'list', data: data.reverse(), model: request.json.model });
    },
  });
  servers.push(server);
  return server;
}

function envFor(extra: Record<string, string>) {
  return loadConfig({
    FATHOM_DATA_DIR: join(modelsDir, 'data'),
    FATHOM_MODELS_DIR: modelsDir,
    FATHOM_ALLOW_REMOTE_MODELS: 'false',
    ...extra,
  });
}

describeEmbedderConformance('HashEmbedder', async () => new HashEmbedder());
describeEmbedderConformance('TransformersEmbedder (generated tiny ONNX model)', () =>
  createEmbedder(envFor({ FATHOM_EMBEDDER: 'transformers', FATHOM_EMBEDDING_MODEL: tinyModelId }), silentLogger),
);
describeEmbedderConformance('OpenAICompatibleEmbedder (local fake server)', async () => {
  const server = await fakeEmbeddingsServer();
  return createEmbedder(
    envFor({ FATHOM_EMBEDDER: 'openai', FATHOM_EMBEDDING_BASE_URL: `${server.url}/v1`, FATHOM_EMBEDDING_BATCH_SIZE: '2' }),
    silentLogger,
  );
});

describe('createEmbedder', () => {
  it('loads the transformers model through the same path users run, with remote models off', async () => {
    const embedder = await createEmbedder(envFor({ FATHOM_EMBEDDER: 'transformers', FATHOM_EMBEDDING_MODEL: tinyModelId }), silentLogger);
    expect(embedder).toBeInstanceOf(TransformersEmbedder);
    expect(embedder.id).toBe(`transformers:${tinyModelId}`);
    expect(embedder.dimensions).toBe(64);
    expect(embedder.maxInputTokens).toBe(126);
    expect(embedder.countTokens('reset my password')).toBe(3);
    await embedder.close?.();
  });

  it('auto falls back to hash with a clear warning when the model is missing', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const embedder = await createEmbedder(envFor({ FATHOM_EMBEDDER: 'auto', FATHOM_EMBEDDING_MODEL: 'nobody/missing-model' }), log);
    expect(embedder).toBeInstanceOf(HashEmbedder);
    expect(warnings.join('\n')).toMatch(/nobody\/missing-model.*hash embedder.*fathom models pull/s);
  });

  it('auto uses the local model when it loads', async () => {
    const embedder = await createEmbedder(envFor({ FATHOM_EMBEDDER: 'auto', FATHOM_EMBEDDING_MODEL: tinyModelId }), silentLogger);
    expect(embedder).toBeInstanceOf(TransformersEmbedder);
    await embedder.close?.();
  });

  it('transformers fails clearly when the model is missing and remote models are off', async () => {
    await expect(
      createEmbedder(envFor({ FATHOM_EMBEDDER: 'transformers', FATHOM_EMBEDDING_MODEL: 'nobody/missing' }), silentLogger),
    ).rejects.toThrow();
  });
});

describe('OpenAICompatibleEmbedder', () => {
  it('batches, sends the key and model, probes dimensions, and re-normalises', async () => {
    const server = await fakeEmbeddingsServer();
    const embedder = await createEmbedder(
      envFor({
        FATHOM_EMBEDDER: 'openai',
        FATHOM_EMBEDDING_BASE_URL: `${server.url}/v1/`,
        FATHOM_EMBEDDING_API_KEY: 'sk-test',
        FATHOM_EMBEDDING_MODEL: 'nomic-embed-text',
        FATHOM_EMBEDDING_BATCH_SIZE: '4',
      }),
      silentLogger,
    );
    expect(embedder.id).toBe('openai:nomic-embed-text:64');
    server.requests.length = 0;
    const values = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const { embeddings } = await embedder.embed({ values });
    expect(server.requests.map((request) => request.json.input.length)).toEqual([4, 4, 2]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]!.json.model).toBe('nomic-embed-text');
    const expected = new HashEmbedder({ dimensions: 64 }).embedOne('text number 7');
    expect(Array.from(embeddings[7]!).map((v) => v.toFixed(5))).toEqual(Array.from(expected).map((v) => v.toFixed(5)));
  });

  it('retries 5xx, then succeeds; does not retry 4xx and reports the upstream message', async () => {
    let calls = 0;
    const server = await createTestServer({
      'POST /v1/embeddings': (request, response) => {
        calls++;
        if (request.json.input[0] === 'bad') return respond.json(response, 400, { error: { message: 'input too long' } });
        if (calls === 1) return respond.json(response, 503, { error: { message: 'warming up' } });
        respond.json(response, 200, { data: [{ index: 0, embedding: [1, 0, 0] }] });
      },
    });
    servers.push(server);
    const embedder = new OpenAICompatibleEmbedder({ baseURL: `${server.url}/v1`, model: 'm', dimensions: 3 });
    const { embeddings } = await embedder.embed({ values: ['ok'] });
    expect(Array.from(embeddings[0]!)).toEqual([1, 0, 0]);
    expect(calls).toBe(2);
    calls = 10;
    const failure = await embedder.embed({ values: ['bad'] }).catch((error) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure.message).toMatch(/400.*input too long/);
    expect(calls).toBe(11);
  });
});
