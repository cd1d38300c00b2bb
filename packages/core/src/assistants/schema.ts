import type { Schema } from '../db';

/**
 * Tables of the assistants component. Each row keeps its public object as JSON in `data` (the wire
 * shape, so reading is a parse) plus the columns that queries filter on. `runs.state` holds what a
 * paused run needs to resume: the turns it added to the conversation and its citation markers.
 */
export const assistantsSchema: Schema = {
  component: 'assistants',
  postgres: [],
  sqlite: [
    `CREATE TABLE assistants (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX assistants_account ON assistants (account_id);
    CREATE TABLE threads (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX threads_account ON threads (account_id);
    CREATE TABLE thread_messages (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      thread_id TEXT NOT NULL,
      run_id TEXT,
      data TEXT NOT NULL
    );
    CREATE INDEX thread_messages_thread ON thread_messages (thread_id);
    CREATE TABLE runs (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      thread_id TEXT NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      state TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX runs_thread ON runs (thread_id);
    CREATE INDEX runs_status ON runs (status);
    CREATE TABLE run_steps (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      thread_id TEXT NOT NULL,
      run_id TEXT NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX run_steps_run ON run_steps (run_id);`,
  ],
};
