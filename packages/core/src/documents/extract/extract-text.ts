import { extname } from 'node:path';
import { decodeText } from './decode-text';
import { ExtractionError } from './extraction-error';
import { htmlToText } from './html';
import { pdfToText } from './pdf';
import { csvToText, jsonToText } from './structured';

/** Extensions read as plain text: prose, markup and common source code. */
export const TEXT_EXTENSIONS = new Set([
  'txt',
  'text',
  'md',
  'markdown',
  'mdx',
  'rst',
  'adoc',
  'org',
  'tex',
  'log',
  'xml',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'java',
  'kt',
  'kts',
  'scala',
  'go',
  'rs',
  'swift',
  'm',
  'py',
  'pyi',
  'rb',
  'php',
  'pl',
  'lua',
  'r',
  'jl',
  'js',
  'mjs',
  'cjs',
  'jsx',
  'ts',
  'tsx',
  'mts',
  'cts',
  'vue',
  'svelte',
  'css',
  'scss',
  'less',
  'sh',
  'bash',
  'zsh',
  'fish',
  'ps1',
  'bat',
  'sql',
  'graphql',
  'proto',
  'dockerfile',
  'makefile',
  'gradle',
  'ex',
  'exs',
  'erl',
  'hs',
  'clj',
  'dart',
  'zig',
  'nim',
  'vb',
  'fs',
  'tf',
  'env',
  'properties',
  'ipynb',
]);
const KNOWN_BINARY = new Set([
  'doc',
  'ppt',
  'pptx',
  'xls',
  'xlsx',
  'odt',
  'rtf',
  'epub',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'zip',
  'gz',
  'mp3',
  'mp4',
  'exe',
]);

export type DocumentFormat = 'pdf' | 'docx' | 'html' | 'json' | 'csv' | 'text';

/** Decides how to read a file from its extension and its first bytes (a PDF named `.txt` is still a PDF). */
export function detectFormat(filename: string, bytes: Uint8Array): DocumentFormat {
  const ext = extname(filename).slice(1).toLowerCase() || filename.toLowerCase();
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (head.startsWith('%PDF-') || ext === 'pdf') return 'pdf';
  if (ext === 'docx') return 'docx';
  if (ext === 'html' || ext === 'htm' || ext === 'xhtml') return 'html';
  if (ext === 'json' || ext === 'jsonl' || ext === 'geojson') return ext === 'jsonl' ? 'text' : 'json';
  if (ext === 'csv' || ext === 'tsv') return 'csv';
  if (TEXT_EXTENSIONS.has(ext)) return 'text';
  if (head.startsWith('PK\u0003\u0004') && head.includes('word/')) return 'docx';
  if (KNOWN_BINARY.has(ext)) {
    throw new ExtractionError(
      'unsupported_file',
      `files of type '.${ext}' are not supported (use PDF, DOCX, TXT, Markdown, HTML, JSON, CSV or source code)`,
    );
  }
  if (/^\s*<(!doctype html|html)/i.test(head)) return 'html';
  return 'text'; // unknown extension: accepted when the bytes are text, refused as binary otherwise
}

/** Extracts the text of one document. Throws `ExtractionError` with a message saying what was wrong. */
export async function extractText(filename: string, bytes: Uint8Array): Promise<string> {
  if (bytes.length === 0) throw new ExtractionError('invalid_file', 'file is empty');
  const format = detectFormat(filename, bytes);
  let text: string;
  switch (format) {
    case 'pdf':
      if (!Buffer.from(bytes.subarray(0, 1024)).toString('latin1').includes('%PDF-')) {
        throw new ExtractionError('invalid_file', 'file is not a valid PDF (no %PDF header)');
      }
      text = await pdfToText(bytes);
      break;
    case 'docx':
      // mammoth and jszip load with the first DOCX (as pdf-parse with the first PDF), not with every process.
      text = await (await import('./docx')).docxToText(bytes);
      break;
    case 'html':
      text = htmlToText(decodeText(bytes, 'HTML file'));
      break;
    case 'json':
      text = jsonToText(decodeText(bytes, 'JSON file'));
      break;
    case 'csv':
      text = csvToText(decodeText(bytes, 'CSV file'));
      break;
    default: {
      const ext = extname(filename).slice(1).toLowerCase();
      text = decodeText(bytes, ext && !TEXT_EXTENSIONS.has(ext) ? `file of type '.${ext}'` : 'file');
    }
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL bytes are removed on purpose
  text = text.replace(/\r\n?/g, '\n').replace(/\u0000/g, '');
  if (!/\S/.test(text)) {
    throw new ExtractionError(
      'invalid_file',
      format === 'pdf' ? 'file contains no text (scanned PDF without a text layer?)' : 'file contains no text',
    );
  }
  return text;
}
