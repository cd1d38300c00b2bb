export type { Dialect, Repository, RunResult, SqlClient, SqlDatabase } from './sql-client';
export type { Schema, SqliteMigration } from './schema';
export { SqliteDatabase, migrateSqlite, type SqliteDatabaseOptions } from './sqlite-database';
export { PostgresDatabase, type PostgresDatabaseOptions } from './postgres-database';
export { openDatabase, type OpenDatabaseOptions } from './open-database';
export { paginate, toPage, type PaginateOptions } from './paginate';
export { placeholders, isUniqueViolation, isStorageFull, byteLengthSql, slices } from './sql-helpers';
export { SqlLeaseQueue, type LeaseTableOptions } from './lease-table';
export { copyTables, type TableCopy } from './copy-tables';
