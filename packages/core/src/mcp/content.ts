import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { boundToolResult, MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import type { McpToolOutcome } from './types';

type ContentBlock = CallToolResult['content'][number];

/** Bytes a base64 string decodes to (for describing binary content without decoding it). */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function blockToText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string') return `[resource: ${resource.uri}]\n${resource.text}`;
      const mime = resource.mimeType ? `${resource.mimeType}, ` : '';
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource: ${resource.uri} (${mime}${base64Bytes(blob)} bytes)]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} ${block.uri}${block.description ? ` - ${block.description}` : ''}]`;
    default:
      return '';
  }
}

/**
 * An MCP `tools/call` result as the text a model reads: text blocks as they are, images and audio as a
 * one-line description (type, MIME type, size), embedded text resources with their URI, binary ones and
 * resource links described; `structuredContent` as JSON when the result has no content blocks. Cut to
 * `maxChars` (the 100,000-character cap every agent tool result has) with a line saying so.
 * The text is untrusted: it is data for the model, never an instruction to Fathom.
 */
export function mcpResultToText(
  result: Partial<CallToolResult> & { toolResult?: unknown },
  maxChars = MAX_TOOL_RESULT_CHARS,
): McpToolOutcome {
  const blocks = Array.isArray(result.content) ? result.content : [];
  let text = blocks
    .map(blockToText)
    .filter((part) => part !== '')
    .join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  // Servers on the 2024-10-07 protocol answer `{toolResult}` instead of content blocks.
  if (text === '' && blocks.length === 0 && result.toolResult !== undefined) {
    text = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  }
  const bounded = boundToolResult(text, maxChars);
  return { text: bounded, isError: result.isError === true, truncated: bounded.length !== text.length || bounded !== text };
}
