import { randomToken } from '../internal/ids';
import type { ChatStreamPart, ChatToolCall } from './types';

/**
 * The tool calls of one streamed model answer, assembled from its `tool-call-delta` parts: the one place
 * every capability (chat completions stored from a stream, assistants, Responses, agents) joins them.
 *
 * Providers split a call over many deltas keyed by `index`, and not only its arguments: some send the
 * function name in pieces too, so every fragment of the name and of the arguments is appended in order.
 * A call whose deltas never carry an id gets one `call_<24 random characters>`, fixed the first time its
 * index is seen, so it stays the same for the whole answer and never repeats across turns.
 */
export class ToolCallAssembler {
  readonly #calls = new Map<number, ChatToolCall>();

  /** Takes a stream part; parts other than tool-call deltas are ignored. */
  add(part: ChatStreamPart): void {
    if (part.type !== 'tool-call-delta') return;
    let call = this.#calls.get(part.index);
    if (!call) {
      call = { id: `call_${randomToken(24)}`, type: 'function', function: { name: '', arguments: '' } };
      this.#calls.set(part.index, call);
    }
    if (part.id) call.id = part.id;
    if (part.name) call.function.name += part.name;
    if (part.argumentsDelta) call.function.arguments += part.argumentsDelta;
  }

  /** The calls so far, in index order. */
  calls(): ChatToolCall[] {
    return [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  }

  get size(): number {
    return this.#calls.size;
  }
}
