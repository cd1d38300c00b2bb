import { InvalidRequestError } from '../errors';
import type { Run } from './types';

/**
 * Reads `tool_outputs` of a submit against the run's pending calls: every output names a pending call,
 * and every pending call gets its output in this one submit (400 naming the field otherwise).
 * Answers output text by call id (non-string outputs are JSON-encoded).
 */
export function readToolOutputs(run: Run, input: { tool_outputs?: unknown }): Map<string, string> {
  const outputs = input.tool_outputs;
  if (!Array.isArray(outputs)) throw new InvalidRequestError(`Missing required parameter: 'tool_outputs'.`, 'tool_outputs');
  const pending = run.required_action?.submit_tool_outputs.tool_calls ?? [];
  const byId = new Map<string, string>();
  for (const [index, item] of outputs.entries()) {
    const callId = (item as { tool_call_id?: unknown })?.tool_call_id;
    if (typeof callId !== 'string' || !pending.some((call) => call.id === callId)) {
      throw new InvalidRequestError(
        `Invalid 'tool_outputs[${index}].tool_call_id': no pending tool call has this id.`,
        `tool_outputs[${index}].tool_call_id`,
      );
    }
    const output = (item as { output?: unknown }).output;
    byId.set(callId, typeof output === 'string' ? output : JSON.stringify(output ?? ''));
  }
  const missing = pending.filter((call) => !byId.has(call.id)).map((call) => call.id);
  if (missing.length) {
    throw new InvalidRequestError(
      `Missing tool outputs for tool_call_id ${missing.map((id) => `'${id}'`).join(', ')}: submit all outputs at once.`,
      'tool_outputs',
    );
  }
  return byId;
}
