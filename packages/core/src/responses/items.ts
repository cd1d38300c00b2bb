import { InvalidRequestError } from '../errors';
import { checkContent, checkJsonLength, checkLength, FIELD_LIMITS } from '../internal/field-limits';
import { newId } from '../internal/ids';

/**
 * An item as Responses and Conversations store and list it (`ResponseItem`/`ConversationItem` in the
 * SDK): always with an `id` and a `type`. Input items are normalised into this shape once, when they
 * arrive, so every later read (input_items, conversation items, `item_reference`, context for the
 * model) sees one form.
 */
export type StoredItem = { id: string; type: string; [key: string]: unknown };

/** An input item that points at a stored item of the same account, resolved when the context is built. */
export interface ItemReference {
  type: 'item_reference';
  id: string;
}

export type InputItem = StoredItem | ItemReference;

const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer'] as const;
const PART_TYPES = ['input_text', 'output_text', 'text', 'refusal', 'input_image', 'input_file'];

function fail(param: string, message: string): never {
  throw new InvalidRequestError(message, param);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(item: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = item[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`${where}.${key}`, `Invalid '${where}.${key}': expected a string.`);
  return value;
}

function requiredString(item: Record<string, unknown>, key: string, where: string): string {
  const value = optionalString(item, key, where);
  if (value === undefined) fail(`${where}.${key}`, `Missing required parameter: '${where}.${key}'.`);
  return value;
}

/** Content parts of a message, in stored form; a string becomes one text part of the role's kind. */
function normalizeContent(content: unknown, role: string, where: string): Record<string, unknown>[] {
  if (typeof content === 'string') {
    return [role === 'assistant' ? { type: 'output_text', text: content, annotations: [] } : { type: 'input_text', text: content }];
  }
  if (!Array.isArray(content)) fail(`${where}.content`, `Invalid '${where}.content': expected a string or an array of content parts.`);
  return content.map((part, index) => {
    const at = `${where}.content[${index}]`;
    if (!isObject(part)) fail(at, `Invalid '${at}': expected an object.`);
    const type = part.type;
    if (typeof type !== 'string' || !PART_TYPES.includes(type)) {
      fail(
        `${at}.type`,
        `Invalid value for '${at}.type': '${String(type)}'. Supported values are: ${PART_TYPES.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
    if (type === 'input_text' || type === 'text') return { type: 'input_text', text: requiredString(part, 'text', at) };
    if (type === 'output_text') {
      checkJsonLength(part.annotations, `${at}.annotations`, FIELD_LIMITS.annotations);
      return {
        type: 'output_text',
        text: requiredString(part, 'text', at),
        annotations: Array.isArray(part.annotations) ? part.annotations : [],
      };
    }
    if (type === 'refusal') return { type: 'refusal', refusal: requiredString(part, 'refusal', at) };
    if (type === 'input_image') {
      const imageUrl = optionalString(part, 'image_url', at);
      const fileId = optionalString(part, 'file_id', at);
      if (!imageUrl && !fileId) fail(`${at}.image_url`, `Missing required parameter: '${at}.image_url' (or '${at}.file_id').`);
      return {
        type: 'input_image',
        detail: optionalString(part, 'detail', at) ?? 'auto',
        image_url: imageUrl ?? null,
        file_id: fileId ?? null,
      };
    }
    const fileId = optionalString(part, 'file_id', at);
    const fileData = optionalString(part, 'file_data', at);
    const filename = optionalString(part, 'filename', at);
    if (optionalString(part, 'file_url', at)) {
      fail(
        `${at}.file_url`,
        `Unsupported parameter: '${at}.file_url'. Upload the file (POST /v1/files) and send 'file_id', or send 'file_data'.`,
      );
    }
    if (!fileId && !fileData)
      fail(`${at}.file_id`, `Missing required parameter: '${at}.file_id' (or '${at}.file_data' with '${at}.filename').`);
    if (fileData && !filename) fail(`${at}.filename`, `Missing required parameter: '${at}.filename' (it tells the file's format).`);
    return {
      type: 'input_file',
      ...(fileId ? { file_id: fileId } : {}),
      ...(fileData ? { file_data: fileData } : {}),
      ...(filename ? { filename } : {}),
    };
  });
}

/** Item types accepted as input; everything a client sends back from an earlier `output` is among them. */
const ACCEPTED = ['message', 'function_call', 'function_call_output', 'file_search_call', 'reasoning', 'item_reference'];

/**
 * Validates one input item (naming the field on error) and gives it its stored form: an id (kept when
 * the client sent one, else new), a status, and messages' content as parts.
 */
export function normalizeInputItem(raw: unknown, where: string): InputItem {
  if (!isObject(raw)) fail(where, `Invalid '${where}': expected an object.`);
  const type = raw.type ?? (raw.role !== undefined ? 'message' : raw.id !== undefined ? 'item_reference' : undefined);
  if (typeof type !== 'string' || !ACCEPTED.includes(type)) {
    fail(
      `${where}.type`,
      `Invalid value for '${where}.type': '${String(type)}'. Fathom accepts ${ACCEPTED.map((name) => `'${name}'`).join(', ')}.`,
    );
  }
  const id = optionalString(raw, 'id', where);
  checkLength(id, `${where}.id`, FIELD_LIMITS.itemId);
  switch (type) {
    case 'item_reference':
      return { type: 'item_reference', id: requiredString(raw, 'id', where) };
    case 'message': {
      const role = raw.role;
      if (typeof role !== 'string' || !(MESSAGE_ROLES as readonly string[]).includes(role)) {
        fail(
          `${where}.role`,
          `Invalid value for '${where}.role': '${String(role)}'. Supported values are: 'user', 'assistant', 'system', 'developer'.`,
        );
      }
      checkContent(raw.content, `${where}.content`);
      return { id: id ?? newId('msg_'), type: 'message', role, status: 'completed', content: normalizeContent(raw.content, role, where) };
    }
    case 'function_call': {
      const call = {
        id: id ?? newId('fc_'),
        type: 'function_call',
        status: 'completed',
        call_id: capped(requiredString(raw, 'call_id', where), `${where}.call_id`, FIELD_LIMITS.itemId),
        name: capped(requiredString(raw, 'name', where), `${where}.name`, FIELD_LIMITS.itemId),
        arguments: optionalString(raw, 'arguments', where) ?? '',
      };
      checkLength(call.arguments, `${where}.arguments`, FIELD_LIMITS.arguments);
      return call;
    }
    case 'function_call_output': {
      const output = raw.output;
      if (typeof output !== 'string' && !Array.isArray(output)) {
        fail(`${where}.output`, `Invalid '${where}.output': expected a string or an array of content parts.`);
      }
      checkJsonLength(output, `${where}.output`, FIELD_LIMITS.toolOutput);
      return {
        id: id ?? newId('fco_'),
        type: 'function_call_output',
        status: 'completed',
        call_id: capped(requiredString(raw, 'call_id', where), `${where}.call_id`, FIELD_LIMITS.itemId),
        output,
      };
    }
    case 'file_search_call': {
      const queries = raw.queries;
      if (!Array.isArray(queries) || queries.some((query) => typeof query !== 'string')) {
        fail(`${where}.queries`, `Invalid '${where}.queries': expected an array of strings.`);
      }
      const results = Array.isArray(raw.results) ? raw.results : null;
      checkJsonLength(queries, `${where}.queries`, FIELD_LIMITS.searchCall);
      checkJsonLength(results, `${where}.results`, FIELD_LIMITS.searchCall);
      return {
        id: requiredString(raw, 'id', where),
        type: 'file_search_call',
        status: optionalEnum(raw, 'status', where, ITEM_STATUSES) ?? 'completed',
        queries,
        results,
      };
    }
    default:
      return normalizeReasoning(raw, where);
  }
}

/** Statuses an item may carry as OpenAI documents them (`file_search_call`, `reasoning`). */
const ITEM_STATUSES = ['in_progress', 'searching', 'completed', 'incomplete', 'failed'];

function optionalEnum(item: Record<string, unknown>, key: string, where: string, values: readonly string[]): string | undefined {
  const value = optionalString(item, key, where);
  if (value !== undefined && !values.includes(value)) {
    fail(`${where}.${key}`, `Invalid value for '${where}.${key}': expected one of ${values.map((name) => `'${name}'`).join(', ')}.`);
  }
  return value;
}

function capped(value: string, param: string, max: number): string {
  checkLength(value, param, max);
  return value;
}

/**
 * A reasoning item in its stored form: only the fields OpenAI defines (`summary`, `content`,
 * `encrypted_content`, `status`), each capped; it is shown back in listings and never reaches the model.
 */
function normalizeReasoning(raw: Record<string, unknown>, where: string): StoredItem {
  const summary = Array.isArray(raw.summary) ? raw.summary : [];
  const content = Array.isArray(raw.content) ? raw.content : undefined;
  const encrypted = optionalString(raw, 'encrypted_content', where);
  checkJsonLength(summary, `${where}.summary`, FIELD_LIMITS.reasoning);
  checkJsonLength(content, `${where}.content`, FIELD_LIMITS.reasoning);
  checkLength(encrypted, `${where}.encrypted_content`, FIELD_LIMITS.reasoning);
  return {
    id: requiredString(raw, 'id', where),
    type: 'reasoning',
    summary,
    ...(content ? { content } : {}),
    ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
    ...(raw.status !== undefined && raw.status !== null ? { status: optionalEnum(raw, 'status', where, ITEM_STATUSES) } : {}),
  };
}

/** `input` as a string or an array of items, normalised (a string is one user message). */
export function normalizeInput(input: unknown, param = 'input'): InputItem[] {
  if (typeof input === 'string') return [normalizeInputItem({ role: 'user', content: input }, param)];
  if (!Array.isArray(input)) fail(param, `Invalid '${param}': expected a string or an array of input items.`);
  return input.map((item, index) => normalizeInputItem(item, `${param}[${index}]`));
}
