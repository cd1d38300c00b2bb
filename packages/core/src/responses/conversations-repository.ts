import type { ListPage, ListQuery } from '../internal/pagination';
import { type Repository, type SqlClient, toPage } from '../storage';
import type { StoredItem } from './items';

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
  /** Appends items; an item whose id the conversation already has is kept as it was. */
  addItems(conversationId: string, accountId: string, items: readonly StoredItem[]): Promise<void>;
  /** Every item, oldest first (the context of a response in the conversation). */
  allItems(conversationId: string): Promise<StoredItem[]>;
  itemsPage(conversationId: string, query: ListQuery): Promise<ListPage<StoredItem>>;
  item(conversationId: string, itemId: string): Promise<StoredItem | undefined>;
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
      const found = await tx.get('SELECT id FROM conversations WHERE id = ? AND account_id = ?', [id, accountId]);
      if (!found) return false;
      await tx.run('DELETE FROM conversation_items WHERE conversation_id = ?', [id]);
      await tx.run('DELETE FROM conversations WHERE id = ?', [id]);
      return true;
    });
  }

  async addItems(conversationId: string, accountId: string, items: readonly StoredItem[]): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    for (const item of items) {
      await this.db.run(
        `INSERT INTO conversation_items (conversation_id, account_id, item_id, item, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (conversation_id, item_id) DO NOTHING`,
        [conversationId, accountId, item.id, JSON.stringify(item), now],
      );
    }
  }

  async allItems(conversationId: string): Promise<StoredItem[]> {
    const rows = await this.db.all<{ item: string }>(
      `SELECT item FROM conversation_items WHERE conversation_id = ? ORDER BY ${this.#order}`,
      [conversationId],
    );
    return rows.map((row) => JSON.parse(row.item));
  }

  async itemsPage(conversationId: string, query: ListQuery): Promise<ListPage<StoredItem>> {
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
    return toPage(rows, limit, (row) => JSON.parse(row.item) as StoredItem);
  }

  async item(conversationId: string, itemId: string): Promise<StoredItem | undefined> {
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
