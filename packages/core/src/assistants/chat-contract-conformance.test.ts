import { loadConfig } from '../config';
import { UpstreamError } from '../errors';
import { ChatAdapter } from '../models/chat-adapter';
import { modelsSchema, UsageStore } from '../models/usage-store';
import type { ChatMessage } from '../models/types';
import { SqliteDatabase } from '../storage';
import { createFakeOpenAIUpstream } from '../test';
import { fakeChat } from './assistant-test-fakes';
import { describeChatContractConformance, type ScriptedTurn } from './chat-contract-conformance';

describeChatContractConformance('ChatAdapter over an OpenAI-compatible upstream', async (script) => {
  const upstream = await createFakeOpenAIUpstream(script.map((turn) => ({ ...turn })));
  const db = new SqliteDatabase({ schemas: [modelsSchema] });
  const usage = new UsageStore(db);
  const chat = new ChatAdapter({
    config: loadConfig({ FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) }),
    usage,
  });
  return {
    chat,
    requests: () =>
      upstream.requests.map((body) => ({
        messages: body.messages as ChatMessage[],
        tools: ((body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name),
      })),
    async close() {
      await chat.close();
      await usage.close();
      await db.close();
      await upstream.close();
    },
  };
});

describeChatContractConformance('fakeChat (the assistant tests’ in-memory model)', async (script: ScriptedTurn[]) => {
  const fake = fakeChat((_request, index) => {
    const turn = script[index]!;
    return {
      ...turn,
      error:
        turn.error &&
        new UpstreamError(`Provider 'fake' answered ${turn.error.status}: ${turn.error.message}`, { statusCode: turn.error.status }),
    };
  });
  return {
    chat: fake.chat,
    requests: () =>
      fake.requests.map((request) => ({ messages: request.messages, tools: (request.tools ?? []).map((tool) => tool.function.name) })),
    close: async () => {},
  };
});
