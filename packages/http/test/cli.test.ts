import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness';
import { type ServeProcess, startServeProcess } from './serve-process';

/*
 * The `fathom` CLI as a user runs it: a process per command, against one `fathom serve` of this file
 * (remote mode, and embedded mode over the data dir that server holds) and over a data dir of its own.
 */
// Each command is a process that loads the sources through tsx: seconds each on a loaded machine.
describe('fathom CLI', { timeout: 600_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'fathom-cli-e2e-'));
  const serverDir = join(root, 'served');
  const docs = join(root, 'docs');
  const adminKey = 'fth_admin_cli_test';
  let server: ServeProcess;
  let upstream: FakeUpstream;
  let remote: Record<string, string>;

  beforeAll(async () => {
    mkdirSync(serverDir, { recursive: true });
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'bees.md'), '# Bees\n\nHoneybees communicate the location of flowers with a waggle dance.');
    writeFileSync(join(docs, 'tides.txt'), 'Spring tides happen at new and full moon, when the sun and moon align.');
    upstream = await createFakeOpenAIUpstream(() => ({ content: 'A batch answer.' }));
    server = await startServeProcess({
      dataDir: serverDir,
      env: { FATHOM_ADMIN_KEY: adminKey, FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
    });
    remote = { FATHOM_BASE_URL: server.url, FATHOM_ADMIN_KEY: adminKey };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers --help on the program and each command with examples, --version with the package version, and usage errors with 2', async () => {
    const [version, help, searchHelp, keysHelp, unknownOption, unknownCommand, missing, badShell, helpCommand, group] = await Promise.all([
      runCli(['--version']),
      runCli(['--help']),
      runCli(['search', '--help']),
      runCli(['keys', 'create', '--help']),
      runCli(['search', 'notes', 'bees', '--bogus']),
      runCli(['serach']),
      runCli(['ingest', docs]),
      runCli(['completion', 'tcsh']),
      runCli(['help', 'search']),
      runCli(['stores']),
    ]);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes: 0 ok, 1 failure, 2 usage error/);
    for (const command of ['serve', 'ingest', 'search', 'stores', 'files', 'accounts', 'keys', 'usage', 'mcp', 'doctor', 'completion'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(searchHelp.code).toBe(0);
    expect(searchHelp.stdout).toContain('Usage: fathom search [options] <store> <query...>');
    expect(searchHelp.stdout).toMatch(/Examples:\n {2}\$ fathom search notes/);
    expect(keysHelp.stdout).toContain('Usage: fathom keys create [options] <account-id>');
    expect(helpCommand).toMatchObject({ code: 0, stdout: searchHelp.stdout });

    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("error: unknown option '--bogus'");
    expect(unknownOption.stderr).toContain('Usage: fathom search [options] <store> <query...>');
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'serach'[\s\S]*Did you mean search\?/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--store <name>' not specified");
    expect(badShell.code).toBe(2);
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/Usage: fathom stores \[options\] \[command\][\s\S]*list \[options\]/);
    expect(badShell.stderr).toMatch(/value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish/);
  });

  it('works remotely: an admin creates an account, its key ingests, searches, lists and deletes, with --json parsed', async () => {
    const created = await runCli(['accounts', 'create', 'Team CLI', '--balance', '5', '--json'], remote);
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { id: string; api_key: string; balance: number };
    expect(account.balance).toBe(5);
    const asAccount = { FATHOM_BASE_URL: `${server.url}/v1`, FATHOM_API_KEY: account.api_key };

    const ingested = await runCli(['ingest', docs, '--store', 'notes'], asAccount);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toMatch(/Created vector store vs_\w+ \(notes\); 2 files; via http/);
    expect(ingested.stdout).toMatch(/Done in [\d.]+ s: 2 files\./);

    const [found, stores, files, usage, accounts, keys, noKey, badLimit] = await Promise.all([
      runCli(['search', 'notes', 'how do bees talk', '--limit', '1', '--json'], asAccount),
      runCli(['stores', 'list', '--json'], asAccount),
      runCli(['files', 'list', '--json'], asAccount),
      runCli(['usage', '--json'], asAccount),
      runCli(['accounts', 'list', '--json'], remote),
      runCli(['keys', 'list', account.id, '--json'], remote),
      runCli(['stores', 'list'], { FATHOM_BASE_URL: server.url }),
      runCli(['search', 'notes', 'bees', '--limit', '0'], asAccount),
    ]);
    const hits = JSON.parse(found.stdout) as Array<{ filename: string; score: number }>;
    expect(hits).toHaveLength(1);
    expect(hits[0]!.filename).toBe('bees.md');
    const storeList = JSON.parse(stores.stdout) as Array<{ id: string; name: string; file_counts: { completed: number } }>;
    expect(storeList.map((s) => [s.name, s.file_counts.completed])).toEqual([['notes', 2]]);
    expect((JSON.parse(files.stdout) as Array<{ filename: string }>).map((f) => f.filename).sort()).toEqual(['bees.md', 'tides.txt']);
    expect(Array.isArray(JSON.parse(usage.stdout))).toBe(true);
    expect((JSON.parse(accounts.stdout) as Array<{ id: string }>).map((a) => a.id)).toContain(account.id);
    const [key] = JSON.parse(keys.stdout) as Array<{ id: string; hint: string; account_id: string }>;
    expect(key).toMatchObject({ account_id: account.id, hint: `…${account.api_key.slice(-4)}` });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('needs a key: set --api-key or FATHOM_API_KEY');
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toMatch(/max_num_results/);

    const table = await runCli(['stores', 'list'], asAccount);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+FILES\s+BYTES\s+CREATED\nvs_\w+\s+notes\s+completed\s+2\s/);
    const deleted = await runCli(['stores', 'delete', 'notes', '--json'], asAccount);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ object: 'vector_store.deleted', deleted: true });

    const revoked = await runCli(['keys', 'revoke', key!.id, '--json'], remote);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: key!.id, deleted: true });
    const refused = await runCli(['stores', 'list'], asAccount);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: 401/);
  });

  it('runs a batch from a JSONL file and rotates a key with a grace period, remotely', async () => {
    const created = await runCli(['accounts', 'create', 'Team batches', '--json'], remote);
    const account = JSON.parse(created.stdout) as { id: string; api_key: string };
    const asAccount = { FATHOM_BASE_URL: server.url, FATHOM_API_KEY: account.api_key };
    const file = join(root, 'requests.jsonl');
    const line = (id: string) =>
      JSON.stringify({
        custom_id: id,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'fake/fake-model', messages: [{ role: 'user', content: id }] },
      });
    writeFileSync(file, `${line('one')}\n${line('two')}\n`);

    const started = await runCli(['batches', 'create', file, '--json'], asAccount);
    expect(started.code, started.stderr).toBe(0);
    const batch = JSON.parse(started.stdout) as { id: string; endpoint: string };
    expect(batch).toMatchObject({ id: expect.stringMatching(/^batch_/), endpoint: '/v1/chat/completions' });
    let status = '';
    let counts: { completed: number; total: number } | undefined;
    for (let attempt = 0; attempt < 60 && status !== 'completed'; attempt++) {
      const got = JSON.parse((await runCli(['batches', 'get', batch.id, '--json'], asAccount)).stdout) as {
        status: string;
        request_counts: { completed: number; total: number };
      };
      ({ status, request_counts: counts } = got);
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe('completed');
    expect(counts).toMatchObject({ completed: 2, total: 2 });
    const listed = JSON.parse((await runCli(['batches', 'list', '--json'], asAccount)).stdout) as Array<{ id: string }>;
    expect(listed.map((entry) => entry.id)).toEqual([batch.id]);

    const [key] = JSON.parse((await runCli(['keys', 'list', account.id, '--json'], remote)).stdout) as Array<{ id: string }>;
    const rotated = await runCli(['keys', 'rotate', account.id, key!.id, '--grace-period', '600', '--json'], remote);
    expect(rotated.code, rotated.stderr).toBe(0);
    const secret = (JSON.parse(rotated.stdout) as { value: string }).value;
    expect(secret).not.toBe(account.api_key);
    const [withNew, withOld, badGrace] = await Promise.all([
      runCli(['batches', 'list'], { ...asAccount, FATHOM_API_KEY: secret }),
      runCli(['batches', 'list'], asAccount),
      runCli(['keys', 'rotate', account.id, key!.id, '--grace-period', 'soon'], remote),
    ]);
    expect([withNew.code, withOld.code]).toEqual([0, 0]);
    expect(withNew.stdout).toContain(batch.id);
    expect(badGrace.code).toBe(2);
    expect(badGrace.stderr).toContain('--grace-period');
  });

  it('embedded over the data dir a running server holds: goes through it with a key, stops without one, never opens it', async () => {
    const embedded = { FATHOM_DATA_DIR: serverDir };
    const [through, without, reindex] = await Promise.all([
      runCli(['stores', 'list', '--json'], { ...embedded, FATHOM_API_KEY: server.apiKey }),
      runCli(['stores', 'list'], embedded),
      runCli(['reindex', '--all'], { ...embedded, FATHOM_API_KEY: server.apiKey }),
    ]);
    expect(through.code, through.stderr).toBe(0);
    expect(through.stderr).toContain(
      `Going through the Fathom server (pid ${server.child.pid}) that serves ${serverDir} at ${server.url}.`,
    );
    expect(Array.isArray(JSON.parse(through.stdout))).toBe(true);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(`A Fathom server (pid ${server.child.pid}) is serving the data dir ${serverDir} at ${server.url}.`);
    expect(without.stderr).toContain('Set --api-key or FATHOM_API_KEY to go through it');
    expect(reindex.code).toBe(1);
    expect(reindex.stderr).toContain('stop it before re-indexing');
  });

  it('embedded over a data dir of its own: ingests and searches without a server', async () => {
    const own = { FATHOM_DATA_DIR: join(root, 'own') };
    const ingested = await runCli(['ingest', docs, '--store', 'notes'], own);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toMatch(/Done in [\d.]+ s: 2 files, 2 chunks/);
    const found = await runCli(['search', 'notes', 'spring tides moon', '--json'], own);
    const hits = JSON.parse(found.stdout) as Array<{ filename: string }>;
    expect(hits[0]!.filename).toBe('tides.txt');
  });

  it('ingests and searches through a running server, and neither it nor the next server over that data dir rebuilds a graph', async () => {
    const dataDir = join(root, 'shared');
    const env = { LOG_LEVEL: 'info' };
    const first = await startServeProcess({ dataDir, env });
    const through = { FATHOM_DATA_DIR: dataDir, FATHOM_API_KEY: first.apiKey };
    const ingested = await runCli(['ingest', docs, '--store', 'shared-notes'], through);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stderr).toContain('Going through the Fathom server');
    const before = await runCli(['search', 'shared-notes', 'waggle dance flowers', '--json'], through);
    expect((JSON.parse(before.stdout) as Array<{ filename: string }>)[0]!.filename).toBe('bees.md');
    await first.stop();

    const second = await startServeProcess({ dataDir, env });
    try {
      const after = await runCli(['search', 'shared-notes', 'spring tides moon', '--json'], {
        ...through,
        FATHOM_API_KEY: second.apiKey,
      });
      expect(after.code, after.stderr).toBe(0);
      expect((JSON.parse(after.stdout) as Array<{ filename: string }>)[0]!.filename).toBe('tides.txt');
      // The store's graph was written by the server that built it and is current: nobody rebuilds it. (The
      // index logs at info, as ingestion does: the first server's log shows the ingestion it ran.)
      expect(first.output()).toMatch(/ingestion of file-\S+ into vs_\S+ completed/);
      expect(first.output()).not.toContain('Rebuilding the HNSW index');
      expect(second.output()).not.toContain('Rebuilding the HNSW index');
    } finally {
      await second.stop();
    }
  });

  it('prints an MCP client configuration the MCP SDK client connects with', async () => {
    const [cursor, claudeCode] = await Promise.all([
      runCli(['mcp', 'config'], { FATHOM_BASE_URL: server.url, FATHOM_API_KEY: server.apiKey }),
      runCli(['mcp', 'config', '--client', 'claude-code'], { FATHOM_DATA_DIR: serverDir, FATHOM_API_KEY: server.apiKey }),
    ]);
    expect(cursor.code, cursor.stderr).toBe(0);
    for (const printed of [cursor, claudeCode]) {
      const { url, headers } = (JSON.parse(printed.stdout) as { mcpServers: { fathom: { url: string; headers: Record<string, string> } } })
        .mcpServers.fathom;
      expect(url).toBe(`${server.url}/mcp`);
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('file_search');
      await client.close();
    }
  });

  it('doctor: one line per check, exit 1 when one fails, a bad setting named with its variable', async () => {
    const [bad, mixed] = await Promise.all([
      runCli(['doctor'], { FATHOM_DATA_DIR: join(root, 'doctor'), FATHOM_EMBEDDER: 'bogus' }),
      runCli(['doctor'], {
        FATHOM_DATA_DIR: join(root, 'doctor'),
        FATHOM_PROVIDERS: JSON.stringify({
          up: { type: 'openai', baseUrl: `${server.url}/v1`, apiKey: server.apiKey },
          down: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
        }),
      }),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL {2}settings\s+FATHOM_EMBEDDER must be transformers, openai, hash or auto, got 'bogus'\.$/m);
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toMatch(/^ok {4}settings\s+parsed/m);
    expect(mixed.stdout).toMatch(/^ok {4}database\s+no SQLite database yet/m);
    expect(mixed.stdout).toMatch(/^ok {4}disk\s+[\d.]+ GB free/m);
    expect(mixed.stdout).toMatch(/^ok {4}embedder\s+hash:v1:512 loaded/m);
    expect(mixed.stdout).toMatch(new RegExp(`^ok {4}provider up\\s+${server.url}/v1/models answered 200$`, 'm'));
    expect(mixed.stdout).toMatch(/^FAIL {2}provider down\s+http:\/\/127\.0\.0\.1:9\/v1\/models unreachable/m);
  });

  it('completion scripts for bash, zsh and fish; bash completes commands and their options', async () => {
    const [bash, zsh, fish] = await Promise.all([
      runCli(['completion', 'bash']),
      runCli(['completion', 'zsh']),
      runCli(['completion', 'fish']),
    ]);
    const complete = (...words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${bash.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fathom_complete; echo "\${COMPREPLY[*]}"`,
        ],
        {
          encoding: 'utf8',
        },
      ).trim();
    expect(complete('fathom', 'st')).toBe('stores');
    expect(complete('fathom', 'keys', '')).toMatch(/^create list revoke /);
    expect(complete('fathom', 'search', 'notes', '--l')).toBe('--limit');
    expect(zsh.stdout).toContain('bashcompinit');
    expect(fish.stdout).toContain(
      "complete -c fathom -n '__fish_seen_subcommand_from keys; and not __fish_seen_subcommand_from create list revoke rotate' -a revoke",
    );
  });

  it('a second `fathom serve` over a SQLite data dir a live server holds stops with exit 1 naming it, and never opens the data dir', async () => {
    const second = await runCli(['serve'], { FATHOM_DATA_DIR: serverDir, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`pid ${server.child.pid}`);
    expect(second.stderr).toContain('one server process owns a data dir on SQLite');
    expect(readdirSync(join(serverDir, 'servers'))).toEqual([`${server.child.pid}.json`]);
  });

  it('the server removes its record when it stops, and a record left by a killed server is ignored', async () => {
    const records = () => (existsSync(join(serverDir, 'servers')) ? readdirSync(join(serverDir, 'servers')) : []);
    expect(records()).toEqual([`${server.child.pid}.json`]);
    await server.stop();
    expect(records()).toEqual([]);
    writeFileSync(join(serverDir, 'servers', '999999.json'), JSON.stringify({ pid: 999999, url: 'http://127.0.0.1:9', started_at: 0 }));
    const { loadConfig } = await import('@fathom/core');
    const { findRunningServer } = await import('../src/cli/server-lock');
    expect(loadConfig({ FATHOM_DATA_DIR: serverDir }).dataDir).toBe(serverDir);
    expect(findRunningServer(serverDir)).toBeUndefined();
    expect(records()).toEqual([]);
  });
});
