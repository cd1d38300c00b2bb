import { type Static, Type } from '@sinclair/typebox';
import { Nullable, OpenObject } from '../wire';

/**
 * One JSON-RPC 2.0 message of the Model Context Protocol (a request, a notification, a result or an
 * error), as `POST /mcp` takes and answers them (as JSON, or as server-sent events when the client
 * accepts a stream). The MCP transport checks the messages itself and answers in JSON-RPC, as MCP
 * clients expect: the OpenAPI document shows this shape, fastify does not validate it.
 */
export const JsonRpcMessage = OpenObject(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Nullable(Type.Union([Type.String(), Type.Integer()]))),
    method: Type.Optional(Type.String({ description: 'initialize, tools/list, tools/call, resources/list, resources/read…' })),
    params: Type.Optional(OpenObject({})),
    result: Type.Optional(OpenObject({})),
    error: Type.Optional(OpenObject({ code: Type.Integer(), message: Type.String() })),
  },
  { title: 'JsonRpcMessage' },
);
export type JsonRpcMessage = Static<typeof JsonRpcMessage>;
