import { createHash } from 'node:crypto';
import { InvalidRequestError } from '../errors';
import { RESPONSE_LIMITS } from '../internal/field-limits';
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../models/types';
import { ContextBudget } from './context-budget';
import type { StoredItem } from './items';

/**
 * Files an input may carry (`input_file`, `input_image` with `file_id`), read for the model. Fathom's
 * documents capability provides it; without it such parts answer 400.
 */
export interface FileContents {
  /** The extracted text of an uploaded file of the account; 404 naming `param` when it is not there. */
  fileText(accountId: string, fileId: string, param: string): Promise<{ filename: string; text: string }>;
  /** The extracted text of inline bytes whose format `filename` tells (PDF, DOCX, text...), for the account. */
  dataText(accountId: string, filename: string, data: Uint8Array, param: string): Promise<string>;
  /** An uploaded image of the account as a `data:` URL. */
  imageDataUrl(accountId: string, fileId: string, param: string): Promise<string>;
  /** 404 naming `param` unless the account has an uploaded file with this id (nothing is read). */
  checkFile(accountId: string, fileId: string, param: string): Promise<void>;
}

export interface ToMessagesContext {
  accountId: string;
  files?: FileContents;
  /** What the files' text may add to the context; default a fresh `ContextBudget`. */
  budget?: ContextBudget;
  /** Index of the first item of the request's own input: items before it are named `earlierParam` in errors. */
  firstInput?: number;
  earlierParam?: string;
}

/**
 * The files one request reads, each once however many parts name it (by `file_id`, or inline data by its
 * hash), at most `RESPONSE_LIMITS.inputFiles` distinct ones; every part's text counts against the budget.
 */
class RequestFiles {
  readonly #reads = new Map<string, Promise<string>>();
  readonly #budget: ContextBudget;

  constructor(
    readonly context: ToMessagesContext,
    budget: ContextBudget,
  ) {
    this.#budget = budget;
  }

  async read(key: string, param: string, read: () => Promise<string>): Promise<string> {
    let pending = this.#reads.get(key);
    if (!pending) {
      if (this.#reads.size >= RESPONSE_LIMITS.inputFiles) {
        throw new InvalidRequestError(
          `Invalid '${param}': a request may read at most ${RESPONSE_LIMITS.inputFiles} distinct files (input_file and input_image parts, earlier turns included); search many documents with the file_search tool instead.`,
          param,
          'too_many_files',
        );
      }
      pending = read();
      this.#reads.set(key, pending);
    }
    const text = await pending;
    this.#budget.take(Buffer.byteLength(text), param);
    return text;
  }
}

/** `data:…;base64,xxx` or plain base64, as the SDKs send `file_data`. */
function decodeFileData(data: string): Uint8Array {
  const comma = data.startsWith('data:') ? data.indexOf(',') : -1;
  return Buffer.from(comma >= 0 ? data.slice(comma + 1) : data, 'base64');
}

async function partToChat(part: Record<string, unknown>, files: RequestFiles, where: string): Promise<ChatContentPart> {
  const { context } = files;
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'refusal':
      return { type: 'text', text: String(part.refusal ?? '') };
    case 'input_image': {
      const detail = typeof part.detail === 'string' && part.detail !== 'auto' ? { detail: part.detail } : {};
      if (typeof part.image_url === 'string' && part.image_url) return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
      const reader = context.files;
      if (!reader) throw new InvalidRequestError(`Images by 'file_id' need the documents capability.`, `${where}.file_id`);
      const param = `${where}.file_id`;
      const fileId = String(part.file_id);
      const url = await files.read(`image:${fileId}`, param, () => reader.imageDataUrl(context.accountId, fileId, param));
      return { type: 'image_url', image_url: { url, ...detail } };
    }
    case 'input_file': {
      const reader = context.files;
      if (!reader) throw new InvalidRequestError(`'input_file' parts need the documents capability.`, `${where}.type`);
      if (typeof part.file_id === 'string') {
        const param = `${where}.file_id`;
        const fileId = part.file_id;
        const text = await files.read(`file:${fileId}`, param, async () => {
          const read = await reader.fileText(context.accountId, fileId, param);
          return `[file ${read.filename}]\n${read.text}`;
        });
        return { type: 'text', text };
      }
      const filename = String(part.filename ?? 'file');
      const param = `${where}.file_data`;
      const data = String(part.file_data ?? '');
      const hash = createHash('sha256').update(data).digest('hex');
      const text = await files.read(`data:${hash}:${filename}`, param, async () => {
        const extracted = await reader.dataText(context.accountId, filename, decodeFileData(data), param);
        return `[file ${filename}]\n${extracted}`;
      });
      return { type: 'text', text };
    }
    default:
      return { type: 'text', text: '' };
  }
}

/** Chat content of stored parts: one text part becomes a plain string (what every provider accepts). */
function collapse(parts: ChatContentPart[]): string | ChatContentPart[] {
  if (parts.length === 1 && parts[0]!.type === 'text') return (parts[0] as { text: string }).text;
  return parts;
}

function renderResults(results: unknown): string {
  if (!Array.isArray(results)) return 'The results of this search were not kept; search again if they are needed.';
  if (results.length === 0) return 'No results found.';
  return JSON.stringify(
    results.map((result: Record<string, unknown>) => ({
      file_id: result.file_id,
      filename: result.filename,
      score: result.score,
      text: result.text,
    })),
  );
}

function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return JSON.stringify(output ?? '');
  return output.map((part: Record<string, unknown>) => (typeof part.text === 'string' ? part.text : '')).join('\n');
}

/**
 * The chat messages a model sees for stored items, in order: messages with their parts, function calls
 * merged into the assistant turn before them, their outputs as tool messages, earlier hosted file
 * searches replayed as a `file_search` call and its result; reasoning items do not reach the model.
 */
export async function itemsToMessages(items: readonly StoredItem[], context: ToMessagesContext): Promise<ChatMessage[]> {
  const files = new RequestFiles(context, context.budget ?? new ContextBudget());
  const firstInput = context.firstInput ?? 0;
  const messages: ChatMessage[] = [];
  const addToolCall = (call: ChatToolCall) => {
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  };
  for (const [index, item] of items.entries()) {
    const where = index >= firstInput ? `input[${index - firstInput}]` : (context.earlierParam ?? 'input');
    if (item.type === 'message') {
      const role = item.role as ChatMessage['role'];
      const parts = Array.isArray(item.content) ? (item.content as Record<string, unknown>[]) : [];
      if (role === 'assistant') {
        const text = parts.map((part) => String(part.text ?? part.refusal ?? '')).join('');
        messages.push({ role: 'assistant', content: text });
      } else {
        const chat = await Promise.all(
          parts.map((part, at) => partToChat(part, files, index >= firstInput ? `${where}.content[${at}]` : where)),
        );
        messages.push({ role, content: collapse(chat) });
      }
    } else if (item.type === 'function_call') {
      addToolCall({
        id: String(item.call_id),
        type: 'function',
        function: { name: String(item.name), arguments: String(item.arguments ?? '') },
      });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: String(item.call_id), content: textOf(item.output) });
    } else if (item.type === 'file_search_call') {
      const queries = Array.isArray(item.queries) ? (item.queries as string[]) : [];
      addToolCall({
        id: item.id,
        type: 'function',
        function: { name: 'file_search', arguments: JSON.stringify({ query: queries.join(' ') }) },
      });
      messages.push({ role: 'tool', tool_call_id: item.id, content: renderResults(item.results) });
    }
  }
  return messages;
}
