import { checkLengths, checkMessages, FIELD_LIMITS } from '../internal/field-limits';

/** Caps of an assistant's text fields (characters). */
export const ASSISTANT_TEXT_LIMITS = {
  name: FIELD_LIMITS.name,
  description: FIELD_LIMITS.description,
  instructions: FIELD_LIMITS.instructions,
};

/** A run request's texts: `instructions`, `additional_instructions` and `additional_messages[i].content`. */
export function checkRunText(input: unknown): void {
  checkLengths(input, { instructions: FIELD_LIMITS.instructions, additional_instructions: FIELD_LIMITS.instructions });
  checkMessages((input as { additional_messages?: unknown } | null)?.additional_messages, 'additional_messages');
}

export { checkContent, checkLengths, checkMessages } from '../internal/field-limits';
