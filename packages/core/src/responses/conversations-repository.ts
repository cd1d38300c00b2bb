import type { ListPage, ListQuery } from '../internal/pagination';
import { byteLengthSql, type Repository, type SqlClient, toPage } from '../storage';
import type { InputItem } from './items';
import { type ItemEntry, itemRow } from './responses-repository';

export interface ConversationRow {
  id: string;
  accountId: string;
  metadata: Record<string, string>;
  createdAt: number;
}

/** Storage of conversations and their items (in the order they were added). */
export interface ConversationsRepository extends Repository<ConversationsRepository> {
  insert(conversation: ConversationRow): Promise<void>;
  get(accountId: string, id: string): Promise<ConversationRow | undefined>;
  setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<boolean>;
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Appends items; an item whose id the conversation already has is kept as it was, and an
   * `item_reference` is stored as the reference. False (nothing written) when the conversation no
   * longer exists: a response that ran in a conversation deleted meanwhile keeps its output to itself.
   */
  addItems(conversationId: string, accountId: string, items: readonly InputItem[]): Promise<boolean>;
  /** Every item's entry, oldest first, with `order` to read the newest ones from (`itemsFrom`). */
  entries(conversationId: string): Promise<Array<ItemEntry & { order: number }>>;
  /** The items from the entry with `order` on, oldest first (references unresolved). */
  itemsFrom(conversationId: string, order: number): Promise<InputItem[]>;
  itemsPage(conversationId: string, query: ListQuery): Promise<ListPage<InputItem>>;
  item(conversationId: string, itemId: string): Promise<InputItem | undefined>;
  deleteItem(conversationId: string, itemId: string): Promise<boolean>;
}

export class SqlConversationsRepository implements ConversationsRepository {
  readonly #order: string;

  constructor(private readonly db: SqlClient) {
    this.#order = db.dialect === 'sqlite' ? 'rowid' : 'seq';
  }

  in(tx: SqlClient): ConversationsRepository {
    return new SqlConversationsRepository(tx);
  }

  async insert(conversation: ConversationRow): Promise<void> {
    await this.db.run('INSERT INTO conversations (id, account_id, metadata, created_at) VALUES (?, ?, ?, ?)', [
      conversation.id,
      conversation.accountId,
      JSON.stringify(conversation.metadata),
      conversation.createdAt,
    ]);
  }

  async get(accountId: string, id: string): Promise<ConversationRow | undefined> {
    const row = await this.db.get<{ id: string; account_id: string; metadata: string | null; created_at: number }>(
      'SELECT id, account_id, metadata, created_at FROM conversations WHERE id = ? AND account_id = ?',
      [id, accountId],
    );
    return row
      ? { id: row.id, accountId: row.account_id, metadata: row.metadata ? JSON.parse(row.metadata) : {}, createdAt: row.created_at }
      : undefined;
  }

  async setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<boolean> {
    const result = await this.db.run('UPDATE conversations SET metadata = ? WHERE id = ? AND account_id = ?', [
      JSON.stringify(metadata),
      id,
      accountId,
    ]);
    return result.changes > 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // PostgreSQL: the row lock first, so a response appending to the conversation (which key-share locks
      // it) either finishes before or finds it gone after, never deadlocks with the item deletes.
      const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
      const found = await tx.get(`SELECT id FROM conversations WHERE id = ? AND account_id = ?${lock}`, [id, accountId]);
      if (!found) return false;
      await tx.run('DELETE FROM conversation_items WHERE conversation_id = ?', [id]);
      await tx.run('DELETE FROM conversations WHERE id = ?', [id]);
      return true;
    });
  }

  async addItems(conversationId: string, accountId: string, items: readonly InputItem[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // PostgreSQL: the key-share lock makes a concurrent delete of the conversation wait for this insert
      // (and then remove its rows too) instead of failing it on the foreign key.
      const lock = tx.dialect === 'postgres' ? ' FOR KEY SHARE' : '';
      if (!(await tx.get(`SELECT id FROM conversations WHERE id = ? AND account_id = ?${lock}`, [conversationId, accountId]))) return false;
      const now = Math.floor(Date.now() / 1000);
      for (const item of items) {
        const row = itemRow(item);
        await tx.run(
          `INSERT INTO conversation_items (conversation_id, account_id, item_id, reference, item, created_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (conversation_id, item_id) DO NOTHING`,
          [conversationId, accountId, row.itemId, row.reference, row.json, now],
        );
      }
      return true;
    });
  }

  async entries(conversationId: string): Promise<Array<ItemEntry & { order: number }>> {
    const rows = await this.db.all<{ item_id: string; reference: number; bytes: number; position: number }>(
      `SELECT item_id, reference, ${byteLengthSql('item')} AS bytes, ${this.#order} AS position
       FROM conversation_items WHERE conversation_id = ? ORDER BY ${this.#order}`,
      [conversationId],
    );
    return rows.map((row) => ({
      itemId: row.item_id,
      reference: row.reference === 1,
      bytes: Number(row.bytes),
      order: Number(row.position),
    }));
  }

  async itemsFrom(conversationId: string, order: number): Promise<InputItem[]> {
    const rows = await this.db.all<{ item: string }>(
      `SELECT item FROM conversation_items WHERE conversation_id = ? AND ${this.#order} >= ? ORDER BY ${this.#order}`,
      [conversationId, order],
    );
    return rows.map((row) => JSON.parse(row.item));
  }

  async itemsPage(conversationId: string, query: ListQuery): Promise<ListPage<InputItem>> {
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['conversation_id = ?'];
    const params: unknown[] = [conversationId];
    const cursor = (itemId: string, op: string) => {
      conditions.push(`${this.#order} ${op} (SELECT ${this.#order} FROM conversation_items WHERE conversation_id = ? AND item_id = ?)`);
      params.push(conversationId, itemId);
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = await this.db.all<{ item: string }>(
      `SELECT item FROM conversation_items WHERE ${conditions.join(' AND ')} ORDER BY ${this.#order} ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...params, limit + 1],
    );
    return toPage(rows, limit, (row) => JSON.parse(row.item) as InputItem);
  }

  async item(conversationId: string, itemId: string): Promise<InputItem | undefined> {
    const row = await this.db.get<{ item: string }>('SELECT item FROM conversation_items WHERE conversation_id = ? AND item_id = ?', [
      conversationId,
      itemId,
    ]);
    return row ? JSON.parse(row.item) : undefined;
  }

  async deleteItem(conversationId: string, itemId: string): Promise<boolean> {
    const result = await this.db.run('DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?', [conversationId, itemId]);
    return result.changes > 0;
  }
}
