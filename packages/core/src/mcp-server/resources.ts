import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError } from '../errors';
import type { McpDocuments } from './sources';

/** Resources per `resources/list` page. */
export const RESOURCE_PAGE = 100;
/** Vector stores one page may pass over (stores without files add nothing to a page but cost a read). */
const MAX_STORES_PER_PAGE = 100;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

const FILE_URI = /^fathom:\/\/files\/([^/?#]+)$/;
const STORE_FILE_URI = /^fathom:\/\/vector_stores\/([^/?#]+)\/files\/([^/?#]+)$/;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'fathom://files/{file_id}',
    name: 'file',
    title: 'File',
    description: 'The text Fathom extracts from an uploaded file (PDF, DOCX, HTML, text, code…).',
    mimeType: 'text/plain',
  },
  {
    uriTemplate: 'fathom://vector_stores/{vector_store_id}/files/{file_id}',
    name: 'vector_store_file',
    title: 'Vector store file',
    description: 'The parsed text of a file in a vector store, as it was indexed for search.',
    mimeType: 'text/plain',
  },
];

/** Where a listing stands: in the account's files, between stores, or in one store's files. */
type Position = { in: 'files'; after?: string } | { in: 'stores'; after?: string } | { in: 'store'; store: string; after?: string };

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decodeCursor(cursor: string | undefined): Position {
  if (cursor === undefined) return { in: 'files' };
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position;
    if (['files', 'stores', 'store'].includes(position?.in) && (position.in !== 'store' || typeof position.store === 'string')) {
      return position;
    }
  } catch {
    // Answered below.
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of a previous resources/list answer.');
}

/**
 * The account's files and vector-store files as MCP resources: `resources/list` in pages of
 * `RESOURCE_PAGE` (the files, then each store's files, oldest first), `resources/read` with the parsed
 * text, read by the same code as `GET /v1/vector_stores/{id}/files/{file_id}/content` and the text
 * Fathom extracts from a file for search.
 */
export class AccountResources {
  constructor(
    private readonly documents: McpDocuments,
    private readonly accountId: string,
  ) {}

  async list(cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const { documents, accountId } = this;
    const resources: Resource[] = [];
    let position: Position | undefined = decodeCursor(cursor);
    let storesVisited = 0;
    while (position && resources.length < RESOURCE_PAGE) {
      const room = RESOURCE_PAGE - resources.length;
      if (position.in === 'files') {
        const page = await documents.listFiles(accountId, { limit: room, after: position.after });
        for (const file of page.data) {
          resources.push({
            uri: `fathom://files/${file.id}`,
            name: file.filename,
            description: `An uploaded file (purpose ${file.purpose}).`,
            mimeType: 'text/plain',
            size: file.bytes,
          });
        }
        position = page.has_more && page.last_id ? { in: 'files', after: page.last_id } : { in: 'stores' };
      } else if (position.in === 'stores') {
        if (storesVisited++ >= MAX_STORES_PER_PAGE) break;
        const next: { id: string } | undefined = (await documents.listVectorStores(accountId, { limit: 1, after: position.after })).data[0];
        position = next ? { in: 'store', store: next.id } : undefined;
      } else {
        const store: string = position.store;
        const page = await documents.listStoreFiles(accountId, store, { limit: room, after: position.after });
        const names = await Promise.all(page.data.map((file) => filenameOf(documents, accountId, file.id)));
        page.data.forEach((file, index) =>
          resources.push({
            uri: `fathom://vector_stores/${store}/files/${file.id}`,
            name: names[index]!,
            description: `The parsed text of a file in vector store ${store} (${file.status}).`,
            mimeType: 'text/plain',
          }),
        );
        position = page.has_more && page.last_id ? { in: 'store', store, after: page.last_id } : { in: 'stores', after: store };
      }
    }
    return position ? { resources, nextCursor: encodeCursor(position) } : { resources };
  }

  async read(uri: string): Promise<ReadResourceResult> {
    const text = await this.#text(uri);
    return { contents: [{ uri, mimeType: 'text/plain', text }] };
  }

  async #text(uri: string): Promise<string> {
    const { documents, accountId } = this;
    try {
      const file = FILE_URI.exec(uri);
      if (file) return await documents.fileText(accountId, file[1]!);
      const storeFile = STORE_FILE_URI.exec(uri);
      if (storeFile) return await documents.storeFileText(accountId, storeFile[1]!, storeFile[2]!);
    } catch (error) {
      if (error instanceof NotFoundError) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
      throw error;
    }
    const forms = 'fathom://files/{file_id} and fathom://vector_stores/{vector_store_id}/files/{file_id}';
    throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} (Fathom's resources are ${forms}).`, { uri });
  }
}

/** A store file's name: its file's, or its id when the file itself was deleted since. */
async function filenameOf(documents: McpDocuments, accountId: string, fileId: string): Promise<string> {
  try {
    return (await documents.retrieveFile(accountId, fileId)).filename;
  } catch (error) {
    if (error instanceof NotFoundError) return fileId;
    throw error;
  }
}
