import { NotFoundError } from '../errors';
import { newAssistant, updateAssistant } from './assistant-input';
import { type AssistantsContext, requireAssistant } from './assistants-context';
import { checkModel, toToolResources } from './normalize-input';
import { checkToolResources } from './thread-attachments';
import type {
  Assistant,
  AssistantCreateParams,
  AssistantDeleted,
  AssistantListParams,
  AssistantsPage,
  AssistantUpdateParams,
} from './wire/assistants';

/**
 * `fathom.assistants`: assistants of an account (OpenAI's `beta.assistants`). The params are the
 * validated wire params (`wire/assistants.ts`); what a schema cannot say is checked here: the model
 * names a configured vendor, and the vector stores of `tool_resources` are the account's.
 */
export class Assistants {
  readonly #context: AssistantsContext;

  constructor(context: AssistantsContext) {
    this.#context = context;
  }

  async create(accountId: string, params: AssistantCreateParams): Promise<Assistant> {
    checkModel(this.#context.deps.chat, params.model);
    const assistant = newAssistant(params);
    await checkToolResources(this.#context.stores, accountId, assistant.tool_resources, 'tool_resources');
    await this.#context.deps.assistants.insert(accountId, assistant);
    return assistant;
  }

  retrieve(accountId: string, assistantId: string): Promise<Assistant> {
    return requireAssistant(this.#context, accountId, assistantId);
  }

  /** Changes the fields given; `tool_resources` given are merged into the assistant's (by resource). */
  async update(accountId: string, assistantId: string, params: AssistantUpdateParams): Promise<Assistant> {
    checkModel(this.#context.deps.chat, params.model);
    const assistant = updateAssistant(await this.retrieve(accountId, assistantId), params);
    if (params.tool_resources !== undefined) {
      await checkToolResources(this.#context.stores, accountId, toToolResources(params.tool_resources), 'tool_resources');
    }
    await this.#context.deps.assistants.save(accountId, assistant);
    return assistant;
  }

  list(accountId: string, query: AssistantListParams = {}): Promise<AssistantsPage> {
    return this.#context.deps.assistants.list(accountId, query);
  }

  async delete(accountId: string, assistantId: string): Promise<AssistantDeleted> {
    if (!(await this.#context.deps.assistants.delete(accountId, assistantId))) throw new NotFoundError('assistant', assistantId);
    return { id: assistantId, object: 'assistant.deleted', deleted: true };
  }
}
