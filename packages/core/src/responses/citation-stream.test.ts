import { describe, expect, it } from 'vitest';
import { CitationStream } from './citation-stream';

const passages = new Map([
  ['0:0', { file_id: 'file-a', filename: 'a.md' }],
  ['1:2', { file_id: 'file-b', filename: 'b.pdf' }],
]);

function run(deltas: string[]) {
  const stream = new CitationStream(passages);
  let text = '';
  for (const delta of deltas) text += stream.push(delta).text;
  text += stream.end();
  return { text, annotations: stream.annotations };
}

describe('CitationStream', () => {
  it('removes known markers and annotates their position, however the deltas split them', () => {
    const answer = 'Tours are refunded【0:0†a.md】 within days【1:2†b.pdf】.';
    const expected = {
      text: 'Tours are refunded within days.',
      annotations: [
        { type: 'file_citation', file_id: 'file-a', filename: 'a.md', index: 18 },
        { type: 'file_citation', file_id: 'file-b', filename: 'b.pdf', index: 30 },
      ],
    };
    expect(run([answer])).toEqual(expected);
    expect(run([...answer])).toEqual(expected);
    expect(run(['Tours are refunded【0', ':0†a.', 'md】 within days【1:2†b.pdf', '】.'])).toEqual(expected);
  });

  it('keeps invented markers and unclosed brackets as text', () => {
    expect(run(['See 【9:9†nowhere】 and 【 unclosed'])).toEqual({ text: 'See 【9:9†nowhere】 and 【 unclosed', annotations: [] });
    const long = `【${'x'.repeat(300)}`;
    expect(run([long, ' end']).text).toBe(`${long} end`);
  });
});
