import { AssistantStreamEvent, describeSchemaIssues, type SchemaIssue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeTurn, type FakeUpstream } from '@fathom/core/test';
import type OpenAI from 'openai';
import { answers } from '../src/validators';
import { startFathom, type StartOptions, type TestFathom } from './harness';

/** The model id tests use: vendor `fake` is the scripted upstream below. */
export const FAKE_MODEL = 'fake/model';

export type Behaviour = (request: any, index: number) => FakeTurn;

/**
 * A model that searches first and then answers citing the first passage marker it was given,
 * the way a real model follows Fathom's citation instructions. Its query is the user's last message.
 */
export const searchThenCite: Behaviour = (request) => {
  const messages: any[] = request.messages;
  const last = messages[messages.length - 1];
  if (last.role !== 'tool') {
    const question = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
    return { toolCalls: [{ name: 'file_search', arguments: { query: String(question) } }] };
  }
  const marker = String(last.content).match(/【\d+:\d+†[^】]*】/)?.[0];
  return { content: marker ? `According to the documents, refunds take 14 days${marker}.` : 'I found nothing.' };
};

export interface AssistantsTestBed {
  server: TestFathom;
  client: OpenAI;
  upstream: FakeUpstream;
  /** Replaces the model's behaviour for the next requests. */
  behave(behaviour: Behaviour): void;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** Fathom wired to a scripted OpenAI-wire upstream on 127.0.0.1 (vendor `fake`). */
export async function startAssistantsTestBed(
  behaviour: Behaviour = searchThenCite,
  options: StartOptions = {},
): Promise<AssistantsTestBed> {
  let current = behaviour;
  const upstream = await createFakeOpenAIUpstream((request, index) => current(request, index));
  const server = await startFathom({
    ...options,
    env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }), ...options.env },
  });
  return {
    server,
    client: server.client,
    upstream,
    behave(next) {
      current = next;
    },
    async close(closeOptions = { keepData: false }) {
      await server.close(closeOptions);
      await upstream.close();
    },
  };
}

const streamEvent = answers.compile(AssistantStreamEvent);

/**
 * The events of an assistant stream that do not match `AssistantStreamEvent` (the declared `schema.stream`
 * of the run routes, as `/v1/openapi.json` shows it), each with what is wrong: empty when all match.
 */
export function undeclaredStreamEvents(events: ReadonlyArray<{ event: string; data: unknown }>): string[] {
  return events.flatMap(({ event, data }) =>
    streamEvent({ event, data }) ? [] : [`${event}: ${describeSchemaIssues((streamEvent.errors ?? []) as SchemaIssue[]).message}`],
  );
}

/** The `{event, data}` pairs of a server-sent event body (`data: [DONE]` stays a string). */
export function parseSse(body: string): Array<{ event: string; data: unknown }> {
  return body
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}
