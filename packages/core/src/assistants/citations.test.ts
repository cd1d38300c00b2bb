import { describe, expect, it } from 'vitest';
import { annotateCitations, citationMarker } from './citations';

describe('citations', () => {
  it('writes markers with turn, index and file name', () => {
    expect(citationMarker(2, 5, 'guide.md')).toBe('【2:5†guide.md】');
    expect(citationMarker(0, 0, 'we【ird】.txt')).toBe('【0:0†weird.txt】');
  });

  it('maps markers in the answer to file_citation annotations with exact offsets', () => {
    const text = 'Refunds take 14 days【0:1†policy.md】 and shipping is free【0:0†faq.txt】.';
    const annotations = annotateCitations(text, { '0:0': { file_id: 'file-a' }, '0:1': { file_id: 'file-b' } });
    expect(annotations).toHaveLength(2);
    for (const annotation of annotations) {
      expect(text.slice(annotation.start_index, annotation.end_index)).toBe(annotation.text);
    }
    expect(annotations[0]).toMatchObject({ type: 'file_citation', text: '【0:1†policy.md】', file_citation: { file_id: 'file-b' } });
    expect(annotations[1]!.file_citation.file_id).toBe('file-a');
  });

  it('ignores markers the run never produced and accepts markers without a file name', () => {
    const annotations = annotateCitations('a【9:9†x】 b【1:0】', { '1:0': { file_id: 'file-c' } });
    expect(annotations).toEqual([
      { type: 'file_citation', text: '【1:0】', start_index: 10, end_index: 15, file_citation: { file_id: 'file-c' } },
    ]);
  });
});
