import type { Schema } from '../storage';

/**
 * The shared rate-limit windows of Webhook cards: up to `limit` slots per key (created as calls need
 * them), each holding the time of the call that last used it. A call takes a slot last used a full
 * window ago, so at most `limit` calls of one key are admitted per window across every process on the
 * database. A key has at most as many rows as calls it admitted in one window.
 */
export const webhooksSchema: Schema = {
  component: 'webhooks',
  sqlite: [
    `CREATE TABLE webhook_rate_slots (
      rate_key TEXT NOT NULL,
      slot INTEGER NOT NULL,
      used_at INTEGER NOT NULL,
      PRIMARY KEY (rate_key, slot)
    ) WITHOUT ROWID;
    CREATE INDEX webhook_rate_slots_free ON webhook_rate_slots (rate_key, used_at);`,
  ],
  postgres: [
    `CREATE TABLE webhook_rate_slots (
      rate_key TEXT NOT NULL,
      slot INTEGER NOT NULL,
      used_at BIGINT NOT NULL,
      PRIMARY KEY (rate_key, slot)
    );
    CREATE INDEX webhook_rate_slots_free ON webhook_rate_slots (rate_key, used_at);`,
  ],
};
