export { openDatabase, type Database, type Schema } from './database';
