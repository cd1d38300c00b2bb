import { consoleLogger, loadConfig, migrateData } from '@fathom/core';
import { embeddedOnly } from './context';

/** `fathom migrate-data`: SQLite data dir -> PostgreSQL, verified. */
export async function migrateDataCommand(options: { to: string }): Promise<void> {
  await embeddedOnly('copying its data');
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
