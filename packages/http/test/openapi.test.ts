import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../src/openapi';
import { routeTables } from '../src/route-tables';
import { json, startFathom, type TestFathom } from './harness';

type Operation = { operationId: string; requestBody?: unknown; responses: Record<string, { content?: Record<string, unknown> }> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/**
 * Routes whose answer is not declared: none (issue 22). A JSON answer has `schema.response`; a file's
 * bytes and a success without a body say so (`produces`).
 */
const NOT_YET_DECLARED = new Set(
  routeTables('all')
    .filter((route) => !route.schema?.response && route.produces !== 'bytes' && route.produces !== 'empty')
    .map((route) => `${route.method} ${route.path}`),
);

describe('GET /v1/openapi.json', () => {
  let server: TestFathom;
  let document: Document;
  beforeAll(async () => {
    server = await startFathom();
    const response = await fetch(`${server.baseURL}/openapi.json`);
    expect(response.status).toBe(200);
    document = await json<Document>(response);
  });
  afterAll(() => server.close({ keepData: false }));

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    const result = await new Validator().validate(document as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of refs) expect(document.components.schemas, name).toHaveProperty(name);
  });

  it('covers every route the server registers, with its method', () => {
    for (const route of routeTables('all')) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
    }
    expect(document.paths['/v1/vector_stores']?.post?.operationId).toBe('createVectorStore');
  });

  it('declares the request body and the answer of every route', () => {
    expect([...NOT_YET_DECLARED]).toEqual([]);
    for (const route of routeTables('all')) {
      const operation = document.paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
      const success = operation.responses[String(route.status ?? 200)];
      if (route.produces === 'empty') expect(success?.content, `${route.method} ${route.path}`).toBeUndefined();
      else expect(success?.content, `${route.method} ${route.path}`).toBeDefined();
      if (route.method === 'POST' && !route.multipart && route.schema?.body === undefined && route.schema?.documentedBody === undefined) {
        // A POST without a body schema takes no body (cancel, rotate…): it must say so with an empty object schema.
        throw new Error(`${route.method} ${route.path} declares no body schema`);
      }
    }
  });

  it('declares every route of files, vector stores and search, under OpenAI operation ids', () => {
    const family = routeTables('all').filter((route) => route.tag === 'Files and vector stores');
    expect(family.length).toBeGreaterThanOrEqual(21);
    expect(family.map((route) => `${route.method} ${route.path}`).filter((route) => NOT_YET_DECLARED.has(route))).toEqual([]);
    expect(document.paths['/v1/files']?.post?.operationId).toBe('createFile');
    expect(document.paths['/v1/vector_stores/{id}']?.get?.operationId).toBe('getVectorStore');
    expect(document.paths['/v1/vector_stores/{id}']?.post?.operationId).toBe('modifyVectorStore');
    expect(document.paths['/v1/vector_stores/{id}/files/{file_id}']?.post?.operationId).toBe('updateVectorStoreFileAttributes');
    expect(document.paths['/v1/vector_stores/{id}/search']?.post?.operationId).toBe('searchVectorStore');
    expect(document.paths['/v1/files']?.post?.requestBody).toMatchObject({
      content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/FileCreateForm' } } },
    });
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['FileObject', 'VectorStoreFile', 'VectorStoreFileBatch', 'VectorStoreSearchPage', 'AttributeFilter']),
    );
  });

  it('names the vector store objects once, as components', () => {
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['VectorStore', 'VectorStoreCreateParams', 'Error']));
  });

  it('declares the assistants family: its objects as components, its streams, include[] as a query array', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Assistant', 'Thread', 'Message', 'Run', 'RunStep', 'AssistantStreamEvent', 'ThreadCreateAndRunParams']),
    );
    const createAndRun = document.paths['/v1/threads/runs']!.post!;
    expect(createAndRun.operationId).toBe('createThreadAndRun');
    expect(Object.keys(createAndRun.responses['200']!.content!)).toEqual(['application/json', 'text/event-stream']);
    expect(document.paths['/v1/threads/{thread_id}/runs/{run_id}/submit_tool_outputs']?.post?.operationId).toBe('submitToolOuputsToRun');
    const steps = document.paths['/v1/threads/{thread_id}/runs/{run_id}/steps']!.get! as Operation & {
      parameters: Array<{ name: string; in: string; schema: { type?: string } }>;
    };
    expect(steps.parameters.find((parameter) => parameter.name === 'include[]')).toMatchObject({ in: 'query', schema: { type: 'array' } });
  });

  it('declares the agents, data tools, account and admin families as Fathom extensions, with their objects as components', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'Agent',
        'Workflow',
        'WorkflowNode',
        'WebhookCard',
        'WebhookAuth',
        'AgentRun',
        'AgentRunStreamEvent',
        'WorkflowToolsPreview',
        'DataTool',
        'ToolJob',
        'MapsToolInput',
        'WebsiteContactsToolInput',
        'LedgerEntry',
        'AccountWithKeys',
      ]),
    );
    const run = document.paths['/v1/agents/{id}/run']!.post! as Operation & { 'x-fathom-extension'?: boolean };
    expect(run.operationId).toBe('createAgentRun');
    expect(run['x-fathom-extension']).toBe(true);
    expect(Object.keys(run.responses['200']!.content!)).toEqual(['application/json', 'text/event-stream']);
    // The workflow's node types are a tagged union (start, agent, webhook, mcp, end); a card's data is its declaration.
    const node = document.components.schemas.WorkflowNode as { discriminator: { propertyName: string }; oneOf: unknown[] };
    expect(node.discriminator.propertyName).toBe('type');
    expect(node.oneOf).toHaveLength(5);
    // A job's input is checked by core against the tool's catalog entry; the document shows each tool's.
    const start = document.paths['/v1/tools/{tool}']!.post! as Operation & {
      requestBody: { content: { 'application/json': { schema: { oneOf: Array<{ $ref: string }> } } } };
    };
    expect(start.operationId).toBe('createToolJob');
    expect(start.responses['202']).toBeDefined();
    expect(start.requestBody.content['application/json'].schema.oneOf).toHaveLength(10);
    expect(document.components.schemas.MapsToolInput).toMatchObject({ required: ['query', 'location'], additionalProperties: false });
    for (const [path, method] of [
      ['/v1/tools/jobs/{id}', 'get'],
      ['/v1/account/ledger', 'get'],
      ['/v1/admin/accounts', 'post'],
      ['/v1/admin/keys/{keyId}', 'delete'],
    ] as const) {
      expect((document.paths[path]![method] as Operation & { 'x-fathom-extension'?: boolean })['x-fathom-extension'], path).toBe(true);
    }
  });

  it('declares the models family: chat completions with their chunk stream, stored completions, embeddings, models, usage', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'ChatCompletionCreateParams',
        'ChatCompletion',
        'ChatCompletionChunk',
        'ChatCompletionStoreMessage',
        'EmbeddingCreateParams',
        'CreateEmbeddingResponse',
        'Model',
        'ModelsPage',
        'UsageRow',
      ]),
    );
    const create = document.paths['/v1/chat/completions']!.post!;
    expect(create.operationId).toBe('createChatCompletion');
    expect(Object.keys(create.responses['200']!.content!)).toEqual(['application/json', 'text/event-stream']);
    const operations = Object.fromEntries(
      [
        '/v1/chat/completions',
        '/v1/chat/completions/{completion_id}',
        '/v1/chat/completions/{completion_id}/messages',
        '/v1/models',
        '/v1/models/{path}',
        '/v1/embeddings',
      ].flatMap((path) => Object.entries(document.paths[path]!).map(([method, operation]) => [`${method} ${path}`, operation.operationId])),
    );
    expect(operations).toEqual({
      'post /v1/chat/completions': 'createChatCompletion',
      'get /v1/chat/completions': 'listChatCompletions',
      'get /v1/chat/completions/{completion_id}': 'getChatCompletion',
      'post /v1/chat/completions/{completion_id}': 'updateChatCompletion',
      'delete /v1/chat/completions/{completion_id}': 'deleteChatCompletion',
      'get /v1/chat/completions/{completion_id}/messages': 'getChatCompletionMessages',
      'get /v1/models': 'listModels',
      'get /v1/models/{path}': 'retrieveModel',
      'post /v1/embeddings': 'createEmbedding',
    });
    const list = document.paths['/v1/chat/completions']!.get! as Operation & { parameters: Array<{ name: string }> };
    expect(list.parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['model', 'metadata', 'limit', 'order', 'after']),
    );
    expect(document.paths['/v1/usage']!.get).toMatchObject({ operationId: 'listUsage', 'x-fathom-extension': true });
    expect(document.paths['/v1/usage/errors']!.get).toMatchObject({ operationId: 'listUsageErrors', 'x-fathom-extension': true });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['UsageErrorsPage', 'UsageErrorRow', 'UsageGroup']));
    const group = document.components.schemas.UsageGroup as { properties: Record<string, unknown> };
    expect(Object.keys(group.properties)).toEqual(expect.arrayContaining(['key_id', 'key_name', 'key_redacted_value']));
    expect(document.paths['/v1/models']!.get).not.toHaveProperty('x-fathom-extension');
  });

  it('declares the responses and conversations family under OpenAI operation ids, with its stream events', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'Response',
        'ResponseCreateParams',
        'ResponseUsage',
        'ResponseOutputItem',
        'ResponseItem',
        'ResponseStreamEvent',
        'Conversation',
        'ConversationItem',
        'ConversationCreateParams',
      ]),
    );
    const operations = Object.fromEntries(
      routeTables('all')
        .filter((route) => /^\/v1\/(responses|conversations)/.test(route.path))
        .map((route) => [
          `${route.method} ${openApiPath(route.path)}`,
          document.paths[openApiPath(route.path)]![route.method.toLowerCase()]!,
        ]),
    );
    expect(Object.fromEntries(Object.entries(operations).map(([key, operation]) => [key, operation.operationId]))).toEqual({
      'POST /v1/responses': 'createResponse',
      'GET /v1/responses/{id}': 'getResponse',
      'DELETE /v1/responses/{id}': 'deleteResponse',
      'POST /v1/responses/{id}/cancel': 'cancelResponse',
      'GET /v1/responses/{id}/input_items': 'listInputItems',
      'POST /v1/conversations': 'createConversation',
      'GET /v1/conversations/{id}': 'getConversation',
      'POST /v1/conversations/{id}': 'updateConversation',
      'DELETE /v1/conversations/{id}': 'deleteConversation',
      'GET /v1/conversations/{id}/items': 'listConversationItems',
      'POST /v1/conversations/{id}/items': 'createConversationItems',
      'GET /v1/conversations/{id}/items/{itemId}': 'getConversationItem',
      'DELETE /v1/conversations/{id}/items/{itemId}': 'deleteConversationItem',
    });
    for (const key of ['POST /v1/responses', 'GET /v1/responses/{id}']) {
      expect(Object.keys(operations[key]!.responses['200']!.content!), key).toEqual(['application/json', 'text/event-stream']);
    }
    const usage = document.components.schemas.ResponseUsage as { properties: { input_tokens_details: { required: string[] } } };
    expect(usage.properties.input_tokens_details.required).toEqual(['cached_tokens', 'cache_write_tokens']);
  });

  it('declares the MCP endpoints: JSON-RPC messages on POST, no body on GET (405) and DELETE', () => {
    for (const path of ['/mcp', '/v1/agents/{id}/mcp']) {
      const post = document.paths[path]!.post!;
      expect(post.requestBody).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcMessage' } } },
      });
      expect(Object.keys(post.responses['200']!.content!)).toEqual(['application/json', 'text/event-stream']);
      expect(document.paths[path]!.get!.responses['200']!.content).toBeUndefined();
      expect(document.paths[path]!.delete!.responses['200']!.content).toBeUndefined();
    }
  });
});
