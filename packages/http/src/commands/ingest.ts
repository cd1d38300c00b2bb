import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Fathom, FileBatchCreateParams, MAX_BATCH_FILES } from '@fathom/core';
import { SingleBar } from 'cli-progress';
import { checkValue } from '../validators';

const USAGE = `Usage: fathom ingest <paths...> --store <name> [--account <account id>] [--max-tokens N --overlap N]

Ingests files and folders (recursively; hidden files and node_modules are skipped) into the vector store
<name> of the default account, creating the store if needed. Runs embedded: no server is needed.`;

/** The account the CLI acts for: `--account`, else the `FATHOM_API_KEY` account, else the oldest account. */
export async function embeddedAccount(fathom: Fathom, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  if (fathom.bootstrap.accountId) return fathom.bootstrap.accountId;
  const account = await fathom.accounts.first();
  if (!account) throw new Error('No account exists yet; start the server once or set FATHOM_API_KEY.');
  return account.id;
}

/** Splits `--name value` options from positional arguments. */
export function parseArgs(args: string[], names: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : '';
    if (name && names.includes(name)) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
      if (value === undefined) throw new Error(`Option --${name} needs a value.`);
      options[name] = value;
    } else if (arg.startsWith('--')) throw new Error(`Unknown option ${arg}.`);
    else positional.push(arg);
  }
  return { positional, options };
}

function collect(path: string, out: string[]): void {
  const stat = statSync(path);
  if (stat.isFile()) out.push(path);
  else if (stat.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      collect(join(path, name), out);
    }
  }
}

/** `fathom ingest`: uploads files into a store and shows files, chunks and chunks/s until every file is done. */
export async function run(args: string[]): Promise<void> {
  const { positional, options } = parseArgs(args, ['store', 'account', 'max-tokens', 'overlap']);
  if (positional.length === 0 || !options.store) {
    console.log(USAGE);
    process.exitCode = 2;
    return;
  }
  const paths: string[] = [];
  for (const path of positional) collect(path, paths);
  if (paths.length === 0) throw new Error('No files found under the given paths.');
  // Checked like the API's body (sizes in range, numbers): a wrong option fails before anything is uploaded.
  const { chunking_strategy: chunking } = checkValue(
    FileBatchCreateParams,
    options['max-tokens'] === undefined
      ? {}
      : {
          chunking_strategy: {
            type: 'static',
            static: { max_chunk_size_tokens: options['max-tokens'], chunk_overlap_tokens: options.overlap ?? '0' },
          },
        },
    { coerce: true },
  );

  const fathom = await Fathom.open({ start: false });
  try {
    const { files, vectorStores } = fathom;
    const accountId = await embeddedAccount(fathom, options.account);
    const existing = await vectorStores.find(accountId, options.store);
    if (existing.length > 1)
      throw new Error(`Several vector stores are named '${options.store}': ${existing.map((s) => s.id).join(', ')}. Pass an id.`);
    const store = existing[0] ?? (await vectorStores.create(accountId, { name: options.store }));
    console.log(
      `${existing[0] ? 'Adding to' : 'Created'} vector store ${store.id} (${options.store}); ${paths.length} files; embedder ${fathom.embedder.id}`,
    );
    const names = new Map<string, string>();
    const fileIds: string[] = [];
    for (const path of paths) {
      const file = await files.create(accountId, { filename: basename(path), purpose: 'assistants', file: readFileSync(path) });
      names.set(file.id, path);
      fileIds.push(file.id);
    }
    for (let i = 0; i < fileIds.length; i += MAX_BATCH_FILES) {
      await vectorStores.fileBatches.create(accountId, store.id, {
        file_ids: fileIds.slice(i, i + MAX_BATCH_FILES),
        chunking_strategy: chunking,
      });
    }
    const started = Date.now();
    const bar = new SingleBar({
      format: 'ingest [{bar}] {value}/{total} files | {chunks} chunks | {rate} chunks/s | {failed} failed | {duration_formatted}',
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    });
    bar.start(fileIds.length, 0, { chunks: 0, rate: '0', failed: 0 });
    fathom.startIngestion();
    let progress = await vectorStores.files.progress(accountId, store.id, fileIds);
    while (progress.done < progress.total) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      progress = await vectorStores.files.progress(accountId, store.id, fileIds);
      const seconds = (Date.now() - started) / 1000;
      bar.update(progress.done, {
        chunks: progress.chunks,
        rate: (progress.chunks / Math.max(seconds, 0.001)).toFixed(0),
        failed: progress.failed,
      });
    }
    bar.stop();
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `Done in ${seconds.toFixed(1)} s: ${progress.total - progress.failed} files, ${progress.chunks} chunks (${(progress.chunks / Math.max(seconds, 0.001)).toFixed(0)} chunks/s).`,
    );
    if (progress.failed > 0) {
      console.log(`\n${progress.failed} file(s) failed:`);
      for (const fileId of fileIds) {
        const file = await vectorStores.files.retrieve(accountId, store.id, fileId);
        if (file.status !== 'completed')
          console.log(`  ${names.get(fileId)}: ${file.last_error?.code ?? file.status}: ${file.last_error?.message ?? ''}`);
      }
      process.exitCode = 1;
    }
  } finally {
    await fathom.close();
  }
}
