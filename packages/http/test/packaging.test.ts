import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The packages as people install them: both are built and packed (`npm pack`), unpacked into the
 * node_modules of a throwaway app, and used without the repository's source condition — a plain Node
 * app runs examples/embedded.mjs, a TypeScript app (NodeNext resolution) type-checks against the
 * shipped declarations. The app lives under the repository's .tmp/ so the packages' dependencies
 * resolve from the repository's node_modules (no network); that every import of the built code is a
 * declared dependency is checked separately.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const packages = { core: join(root, 'packages/core'), http: join(root, 'packages/http') };
let app: string;
let tarballs: Record<'core' | 'http', string>;
let listing: Record<'core' | 'http', string[]>;

beforeAll(async () => {
  await run('npm', ['run', 'build', '-w', '@fathom/core', '-w', '@fathom/http'], { cwd: root, timeout: 240_000 });
  const out = mkdtempSync(join(tmpdir(), 'fathom-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '-w', '@fathom/core', '-w', '@fathom/http', '--pack-destination', out], {
    cwd: root,
    timeout: 120_000,
  });
  const packed = JSON.parse(stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
  const of = (name: string) => packed.find((entry) => entry.name === name)!;
  tarballs = { core: join(out, of('@fathom/core').filename), http: join(out, of('@fathom/http').filename) };
  listing = { core: of('@fathom/core').files.map((file) => file.path), http: of('@fathom/http').files.map((file) => file.path) };
  mkdirSync(join(root, '.tmp'), { recursive: true });
  app = mkdtempSync(join(root, '.tmp', 'packaging-'));
  for (const name of ['core', 'http'] as const) {
    const target = join(app, 'node_modules', '@fathom', name);
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', tarballs[name], '-C', target, '--strip-components=1']);
    // A dependency the workspace could not hoist (another version sits at the root, e.g. commander 4 for a
    // tool, 14 for the CLI) lives in the package's own node_modules: npm would install it there for a user.
    const nested = join(packages[name], 'node_modules');
    if (!existsSync(nested)) continue;
    mkdirSync(join(target, 'node_modules'), { recursive: true });
    for (const dependency of readdirSync(nested)) {
      if (!dependency.startsWith('.')) symlinkSync(join(nested, dependency), join(target, 'node_modules', dependency));
    }
  }
}, 400_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('the packages as published', () => {
  it('ship the build and the declarations, not the sources, tests or conformance suites', () => {
    for (const name of ['core', 'http'] as const) {
      expect(listing[name]).toContain('dist/index.js');
      expect(listing[name]).toContain('dist/index.d.ts');
      expect(listing[name].filter((path) => path.startsWith('src/') || path.endsWith('.test.ts'))).toEqual([]);
    }
    expect(listing.core).toContain('dist/test/index.d.ts');
    expect(listing.http).toContain('bin/fathom.js');
  });

  it('declare every package their built code imports', () => {
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    for (const name of ['core', 'http'] as const) {
      const manifest = JSON.parse(readFileSync(join(packages[name], 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      const dist = join(packages[name], 'dist');
      const imported = new Set<string>();
      for (const file of readdirSync(dist, { recursive: true }) as string[]) {
        if (!file.endsWith('.js')) continue;
        const code = readFileSync(join(dist, file), 'utf8');
        const statements =
          /(?:^|[;\n}])\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"'./][^"']*)["']|(?:^|[;\n])\s*import\s*["']([^"'./][^"']*)["']|\bimport\(\s*["']([^"'./][^"']*)["']\s*\)/g;
        for (const match of code.matchAll(statements)) {
          const specifier = (match[1] ?? match[2] ?? match[3])!;
          const packageName = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
          if (!builtins.has(specifier) && !builtins.has(packageName)) imported.add(packageName);
        }
      }
      const undeclared = [...imported].filter((dependency) => !(dependency in manifest.dependencies));
      // The test helpers start PGlite on demand; PGlite is for tests, not a dependency of the library.
      const testOnly = name === 'core' ? ['@electric-sql/pglite', '@electric-sql/pglite-pgvector'] : [];
      expect(
        undeclared.filter((dependency) => !testOnly.includes(dependency)),
        name,
      ).toEqual([]);
    }
  });

  it('run examples/embedded.mjs in a plain Node app', async () => {
    copyFileSync(join(root, 'examples/embedded.mjs'), join(app, 'embedded.mjs'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'embedding-app', private: true, type: 'module' }));
    const { stdout } = await run(process.execPath, ['embedded.mjs'], {
      cwd: app,
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(stdout).toContain('INV-7731');
    expect(stdout).toMatch(/completed: 1/);
  });

  it('run the built `fathom` command as npx runs it: version, help, a usage error, ingest and search with --json', async () => {
    const bin = join(app, 'node_modules/@fathom/http/bin/fathom.js');
    const version = (JSON.parse(readFileSync(join(packages.http, 'package.json'), 'utf8')) as { version: string }).version;
    const env = { PATH: process.env.PATH ?? '', HOME: app, FATHOM_DATA_DIR: join(app, 'cli-data'), FATHOM_EMBEDDER: 'hash' };
    const fathom = (...args: string[]) =>
      run(process.execPath, [bin, ...args], { cwd: app, timeout: 60_000, env }).then(
        (done) => ({ code: 0, ...done }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    expect((await fathom('--version')).stdout.trim()).toBe(version);
    expect((await fathom('search', '--help')).stdout).toContain('Examples:');
    const usage = await fathom('search', '--no-such-option');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--no-such-option');
    mkdirSync(join(app, 'cli-docs'), { recursive: true });
    writeFileSync(join(app, 'cli-docs', 'tides.txt'), 'Spring tides happen at new and full moon, when the sun and moon align.');
    expect((await fathom('ingest', join(app, 'cli-docs'), '--store', 'notes')).stdout).toMatch(/Done in [\d.]+ s: 1 file, 1 chunk /);
    const hits = JSON.parse((await fathom('search', 'notes', 'spring tides', '--json')).stdout) as Array<{ filename: string }>;
    expect(hits[0]!.filename).toBe('tides.txt');
    // Five processes of up to 60 s each: the file's 30 s default is what a loaded machine missed, not the commands.
  }, 120_000);

  it('type-check a TypeScript app against the shipped declarations (NodeNext)', async () => {
    writeFileSync(
      join(app, 'check.ts'),
      [
        "import { Fathom, WebhookToolkit, EgressGuard, type Account, type VectorStoreSearchResponse } from '@fathom/core';",
        "import { createServer } from '@fathom/http';",
        "import { createFakeOpenAIUpstream } from '@fathom/core/test';",
        'export async function main(): Promise<void> {',
        "  const fathom = await Fathom.open({ config: { dataDir: './.fathom' } });",
        '  const store = await fathom.vectorStores.create(fathom.bootstrap.accountId!, { name: "docs", metadata: { team: "ops" } });',
        '  const page = await fathom.vectorStores.search(fathom.bootstrap.accountId!, store.id, { query: "x", max_num_results: 5 });',
        '  const hits: VectorStoreSearchResponse[] = page.data;',
        "  const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: ['127.0.0.1'] }) });",
        '  const account: Account | null = await fathom.accounts.authenticate("key");',
        '  const app = await createServer(fathom);',
        '  const upstream = await createFakeOpenAIUpstream([]);',
        '  console.log(hits.length, typeof toolkit.compile, account?.id, typeof app.listen, upstream.baseUrl);',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, timeout: 120_000 }).catch((error) => error);
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
    // The declarations are real types, not `any`: a wrong call is an error, and so is a misspelt field.
    writeFileSync(
      join(app, 'check.ts'),
      [
        "import { Fathom } from '@fathom/core';",
        "export const wrong = (f: Fathom) => f.vectorStores.search(42, 'x', { query: 'x' });",
        "export const misspelt = (f: Fathom) => f.vectorStores.create('acct', { nmae: 'docs' });",
        "export const misspeltResponse = (f: Fathom) => f.responses.create('acct', { model: 'm', inptu: 'hi' });",
      ].join('\n'),
    );
    const failed = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, timeout: 120_000 }).catch((error) => error);
    expect(`${failed.stdout}`).toMatch(/check\.ts\(2,.*error TS2345/);
    expect(`${failed.stdout}`).toMatch(/check\.ts\(3,.*error TS2353.*'nmae'/);
    expect(`${failed.stdout}`).toMatch(/check\.ts\(4,.*error TS2561.*'inptu'.*Did you mean to write 'input'/);
    // Two runs of tsc of up to 120 s each, as their own timeouts say (10 s on a quiet machine, 30 s at load 15).
  }, 240_000);
});
