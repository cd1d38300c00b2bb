import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fathom, silentLogger } from '@fathom/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../src/console';
import { createServer } from '../src/server';

/** The console's static files: served from a build directory with CSP and caching, no key needed. */
describe('console static files', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-console-static-'));
  const buildDir = mkdtempSync(join(tmpdir(), 'fathom-console-build-'));
  let fathom: Fathom;
  let app: FastifyInstance;
  let url: string;
  const bigScript = `console.log(${JSON.stringify('x'.repeat(5000))});`;

  beforeAll(async () => {
    mkdirSync(join(buildDir, 'assets'));
    writeFileSync(join(buildDir, 'index.html'), '<!doctype html><script type="module" src="/console/assets/index-abc123.js"></script>');
    writeFileSync(join(buildDir, 'assets', 'index-abc123.js'), bigScript);
    fathom = await Fathom.open({ env: { FATHOM_EMBEDDER: 'hash', FATHOM_DATA_DIR: dataDir, FATHOM_API_KEY: 'k' }, logger: silentLogger });
    app = await createServer(fathom, { consoleDir: buildDir });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await fathom.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(buildDir, { recursive: true, force: true });
  });

  it('redirects / to /console/ and serves index.html uncached with the strict policy', async () => {
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    expect((await fetch(`${url}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
    const index = await fetch(`${url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(await index.text()).toContain('index-abc123.js');
    // A path without an extension is a console page: the same index.html.
    expect(await (await fetch(`${url}/console/agents/x`)).text()).toContain('index-abc123.js');
  });

  it('caches hashed assets for a year and gzips them for clients that accept it', async () => {
    const gzipped = await fetch(`${url}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(gzipped.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(await gzipped.text()).toBe(bigScript);
    const plain = await fetch(`${url}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(bigScript);
  });

  it('answers 404 for files that are not in the build, including attempts to leave it', async () => {
    for (const path of [
      '/console/assets/missing.js',
      '/console/../package.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/assets/..%2f..%2findex.html.js',
    ]) {
      const response = await fetch(`${url}${path}`);
      expect([404, 400]).toContain(response.status);
      expect(await response.text()).not.toContain('"name"');
    }
  });

  it('says how to build the console when it is missing', async () => {
    const bare = await createServer(fathom, { consoleDir: join(buildDir, 'nothing-here') });
    const response = await bare.inject({ method: 'GET', url: '/console/' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toMatchObject({ code: 'console_not_built' });
    expect(response.json().error.message).toContain('npm install');
    await bare.close();
  });
});
