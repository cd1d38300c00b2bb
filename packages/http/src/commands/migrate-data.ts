import { consoleLogger, loadConfig, migrateData } from '@fathom/core';
import { parseArgs } from './ingest';

const USAGE = `Usage: fathom migrate-data --to postgres://user:password@host:port/database

Copies the SQLite data dir (FATHOM_DATA_DIR) into an empty PostgreSQL database with pgvector: accounts,
keys, the ledger, files and their bytes, vector stores with their chunks and vectors (nothing is
embedded again), assistants, jobs, agents, responses, conversations. Then compares every count and
exits non-zero when one differs. Stop the server first; the data dir is only read.`;

/** `fathom migrate-data`: SQLite data dir -> PostgreSQL, verified. */
export async function run(args: string[]): Promise<void> {
  const { options } = parseArgs(args, ['to']);
  if (!options.to || args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    if (!options.to) process.exitCode = 2;
    return;
  }
  const config = loadConfig(process.env, {});
  console.log(`Copying ${config.dataDir} into ${options.to.replace(/\/\/[^@/]*@/, '//***@')} ...`);
  const report = await migrateData({
    dataDir: config.dataDir,
    databaseUrl: options.to,
    log: consoleLogger,
    progress: (line) => console.log(`  ${line}`),
  });
  const differing = [
    ...report.tables
      .filter((copy) => copy.source !== copy.target)
      .map((copy) => `table ${copy.table}: ${copy.source} in SQLite, ${copy.target} in PostgreSQL`),
    ...report.vectors
      .filter((store) => store.source !== store.target)
      .map((store) => `store ${store.storeId}: ${store.source} chunks in SQLite, ${store.target} in PostgreSQL`),
    ...(report.files.source !== report.files.target ? [`file bytes: ${report.files.source} files, ${report.files.target} copied`] : []),
  ];
  if (report.ok) {
    console.log(
      `Done: ${report.tables.length} tables, ${report.vectors.length} stores, ${report.files.target} files; every count matches.`,
    );
    console.log(`Start Fathom with FATHOM_DATABASE_URL=${options.to.replace(/\/\/[^@/]*@/, '//***@')}`);
  } else {
    console.error(`The copy is incomplete:\n${differing.map((line) => `  ${line}`).join('\n')}`);
    process.exitCode = 1;
  }
}
