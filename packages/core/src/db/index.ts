export { openDatabase, migrate, type Database, type Schema, type OpenDatabaseOptions } from './database';
