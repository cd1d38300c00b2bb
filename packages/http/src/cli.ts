#!/usr/bin/env node
/** The `fathom` CLI: serve, ingest, search, reindex, models pull, migrate-data. */
const USAGE = `Usage: fathom <command> [options]

Commands:
  serve                                   serve the API (what npm start runs)
  ingest <paths...> --store <name>        ingest files or folders into a store (no server needed)
  search <store> "<query>"                ranked passages with file names and scores
  reindex <store>                         re-embed a store with the current embedder
  models pull [model-id]                  fetch the embedding model into FATHOM_MODELS_DIR
  migrate-data --to postgres://…          copy this data dir (SQLite) into an empty PostgreSQL and verify

Settings come from the environment; see docs/configuration.md.`;

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return;
  }
  if (name === 'serve') {
    const { serve } = await import('./commands/serve');
    await serve();
    return;
  }
  const loader: Record<string, () => Promise<{ run: (args: string[]) => Promise<void> }>> = {
    ingest: () => import('./commands/ingest'),
    search: () => import('./commands/search'),
    reindex: () => import('./commands/reindex'),
    models: () => import('./commands/models'),
    'migrate-data': () => import('./commands/migrate-data'),
  };
  const load = loader[name];
  if (!load) {
    console.error(`Unknown command '${name}'.\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const command = await load();
  await command.run(args);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
