import type { Database } from '../db';
import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import { normalizeMetadata, normalizeToolResources, normalizeTools, optionalNumber, requireModel } from './normalize-input';
import type { Assistant } from './types';

/** Body of `POST /v1/assistants` (and, all optional, of `POST /v1/assistants/{id}`). */
export interface AssistantInput {
  model?: string;
  name?: string | null;
  description?: string | null;
  instructions?: string | null;
  tools?: unknown[];
  tool_resources?: unknown;
  metadata?: Record<string, string> | null;
  temperature?: number | null;
  top_p?: number | null;
  response_format?: unknown;
}

/** Assistants of each account, as OpenAI's `assistant` objects. */
export class AssistantStore {
  constructor(private readonly db: Database) {}

  create(accountId: string, input: AssistantInput): Assistant {
    const assistant: Assistant = {
      id: newId('asst_'),
      object: 'assistant',
      created_at: nowSeconds(),
      name: input.name ?? null,
      description: input.description ?? null,
      model: requireModel(input.model),
      instructions: input.instructions ?? null,
      tools: normalizeTools(input.tools),
      tool_resources: normalizeToolResources(input.tool_resources) ?? {},
      metadata: normalizeMetadata(input.metadata) ?? {},
      temperature: optionalNumber(input.temperature, 'temperature', 0, 2) ?? 1,
      top_p: optionalNumber(input.top_p, 'top_p', 0, 1) ?? 1,
      response_format: input.response_format ?? 'auto',
    };
    this.db
      .prepare('INSERT INTO assistants (id, account_id, data) VALUES (?, ?, ?)')
      .run(assistant.id, accountId, JSON.stringify(assistant));
    return assistant;
  }

  get(accountId: string, id: string, param: string | null = null): Assistant {
    const row = this.db
      .prepare<[string, string], { data: string }>('SELECT data FROM assistants WHERE id = ? AND account_id = ?')
      .get(id, accountId);
    if (!row) throw new NotFoundError('assistant', id, param);
    return JSON.parse(row.data) as Assistant;
  }

  update(accountId: string, id: string, input: AssistantInput): Assistant {
    const assistant = this.get(accountId, id);
    const has = (key: keyof AssistantInput) => Object.hasOwn(input, key) && input[key] !== undefined;
    if (has('model')) assistant.model = requireModel(input.model);
    if (has('name')) assistant.name = input.name ?? null;
    if (has('description')) assistant.description = input.description ?? null;
    if (has('instructions')) assistant.instructions = input.instructions ?? null;
    if (has('tools')) assistant.tools = normalizeTools(input.tools);
    if (has('tool_resources')) assistant.tool_resources = { ...assistant.tool_resources, ...normalizeToolResources(input.tool_resources) };
    if (has('metadata')) assistant.metadata = normalizeMetadata(input.metadata) ?? {};
    if (has('temperature')) assistant.temperature = optionalNumber(input.temperature, 'temperature', 0, 2) ?? 1;
    if (has('top_p')) assistant.top_p = optionalNumber(input.top_p, 'top_p', 0, 1) ?? 1;
    if (has('response_format')) assistant.response_format = input.response_format;
    this.db.prepare('UPDATE assistants SET data = ? WHERE id = ?').run(JSON.stringify(assistant), id);
    return assistant;
  }

  list(accountId: string, query: ListQuery): ListPage<Assistant> {
    return paginate<{ data: string }, Assistant>(this.db, {
      table: 'assistants',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => JSON.parse(row.data) as Assistant,
    });
  }

  delete(accountId: string, id: string): { id: string; object: 'assistant.deleted'; deleted: true } {
    this.get(accountId, id);
    this.db.prepare('DELETE FROM assistants WHERE id = ?').run(id);
    return { id, object: 'assistant.deleted', deleted: true };
  }
}
