import { describe, expect, it } from 'vitest';
import { checkContent, checkLength, checkLengths, checkMessages, FIELD_LIMITS } from './field-limits';

const problem = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    return { message: (error as Error).message, param: (error as { param: string }).param, code: (error as { code: string }).code };
  }
  return null;
};

describe('field limits', () => {
  it('accepts exactly the cap and refuses one character more, naming the field like OpenAI', () => {
    expect(problem(() => checkLength('x'.repeat(256), 'name', FIELD_LIMITS.name))).toBeNull();
    expect(problem(() => checkLength('x'.repeat(257), 'name', FIELD_LIMITS.name))).toEqual({
      message: "Invalid 'name': string too long. Expected a string with maximum length 256, but got a string with length 257 instead.",
      param: 'name',
      code: 'string_above_max_length',
    });
  });

  it('counts characters, not UTF-16 units: 256 emoji fit a 256-character name', () => {
    expect(problem(() => checkLength('📄'.repeat(256), 'name', 256))).toBeNull();
    expect(problem(() => checkLength('📄'.repeat(257), 'name', 256))?.message).toContain('length 257');
  });

  it('ignores absent and non-string values (type checks live elsewhere)', () => {
    expect(problem(() => checkLengths({ name: null, description: 42 }, { name: 256, description: 512 }))).toBeNull();
    expect(problem(() => checkLengths(undefined, { name: 256 }))).toBeNull();
  });

  it('counts the text parts of a message together', () => {
    const half = 'y'.repeat(FIELD_LIMITS.content / 2);
    expect(
      problem(() =>
        checkContent(
          [
            { type: 'text', text: half },
            { type: 'text', text: half },
          ],
          'content',
        ),
      ),
    ).toBeNull();
    expect(
      problem(() =>
        checkMessages(
          [
            { role: 'user', content: 'ok' },
            {
              role: 'user',
              content: [
                { type: 'text', text: half },
                { type: 'input_text', text: `${half}z` },
              ],
            },
          ],
          'messages',
        ),
      ),
    ).toMatchObject({ param: 'messages[1].content', message: expect.stringContaining('length 256001') });
  });
});
