import { describe, expect, it } from 'vitest';
import { ExtractionError } from './extraction-error';
import { jsonToText, MAX_JSON_DOCUMENT_DEPTH } from './structured';

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

describe('jsonToText', () => {
  it('lays JSON out as indented text', () => {
    expect(jsonToText('{"sku":"AB-12","tags":["x"]}')).toBe('{\n  "sku": "AB-12",\n  "tags": [\n    "x"\n  ]\n}');
  });

  it('refuses a 1,000,000-deep document as invalid_file, not a crash', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    let caught: unknown;
    try {
      jsonToText(deep);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExtractionError);
    expect(caught).toMatchObject({ code: 'invalid_file', message: `JSON nests deeper than ${MAX_JSON_DOCUMENT_DEPTH} levels` });
  });

  it('reads a document exactly at the depth limit, compactly past 32 levels so indentation cannot balloon', () => {
    const text = jsonToText(nested(MAX_JSON_DOCUMENT_DEPTH - 1, '"deep value"'));
    expect(text).toContain('"deep value"');
    expect(text).toBe(nested(MAX_JSON_DOCUMENT_DEPTH - 1, '"deep value"'));
    expect(jsonToText(nested(32))).toContain('\n');
  });
});
