import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from '@fathom/core';
import { useState, type FormEvent } from 'react';
import type { List, ModelsPage, VectorStore } from '../api/types';
import { Empty, ErrorMessage, Section, useApi, useLoad } from '../components/ui';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  sources?: Array<{ filename: string; score: number; text: string }>;
}

/**
 * Chat with any configured model, streamed. With a vector store chosen, the question goes through
 * `/v1/responses` with the hosted `file_search` tool, and the passages it found are shown as sources.
 */
export function PlaygroundPage() {
  const api = useApi();
  const models = useLoad((signal) => api.get<ModelsPage>('/v1/models', undefined, signal), []);
  const stores = useLoad((signal) => api.get<List<VectorStore>>('/v1/vector_stores', { limit: 100 }, signal), []);
  const [model, setModel] = useState('');
  const [storeId, setStoreId] = useState('');
  const [system, setSystem] = useState('');
  const [input, setInput] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<Error | undefined>();
  const [streaming, setStreaming] = useState(false);
  const chosenModel = model || models.data?.data[0]?.id || '';

  const appendToLast = (change: (turn: Turn) => Turn) => setTurns((list) => [...list.slice(0, -1), change(list[list.length - 1]!)]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim() || !chosenModel) return;
    const history: Turn[] = [...turns, { role: 'user', content: input }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setError(undefined);
    setStreaming(true);
    const messages: ChatCompletionMessageParam[] = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      ...history.map(({ role, content }) => ({ role, content })),
    ];
    try {
      if (storeId) {
        const events = api.stream('/v1/responses', {
          model: chosenModel,
          input: messages,
          tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
          include: ['file_search_call.results'],
          stream: true,
        });
        for await (const part of events) {
          if (part.event === 'response.output_text.delta') appendToLast((turn) => ({ ...turn, content: turn.content + part.data.delta }));
          if (part.event === 'response.file_search_call.completed' || part.event === 'response.completed' || part.event === 'error') {
            if (part.event === 'error') throw new Error(part.data?.error?.message ?? part.data?.message ?? 'The response failed.');
          }
          if (part.event === 'response.completed' || part.event === 'response.failed') {
            const output = (part.data.response?.output ?? []) as any[];
            const sources = output
              .filter((item) => item.type === 'file_search_call')
              .flatMap((item) => item.results ?? [])
              .map((result: any) => ({ filename: result.filename, score: result.score, text: result.text }));
            appendToLast((turn) => ({ ...turn, sources }));
            if (part.event === 'response.failed') throw new Error(part.data.response?.error?.message ?? 'The response failed.');
          }
        }
      } else {
        const request: ChatCompletionCreateParamsStreaming = { model: chosenModel, messages, stream: true };
        for await (const part of api.stream('/v1/chat/completions', request)) {
          if (part.data === '[DONE]') break;
          if (part.data?.error) throw new Error(part.data.error.message);
          const chunk: ChatCompletionChunk = part.data;
          const delta = chunk.choices[0]?.delta.content;
          if (delta) appendToLast((turn) => ({ ...turn, content: turn.content + delta }));
        }
      }
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setStreaming(false);
    }
  };

  return (
    <Section
      title="Playground"
      actions={
        <button type="button" onClick={() => setTurns([])} disabled={streaming || turns.length === 0}>
          Clear chat
        </button>
      }
    >
      <ErrorMessage error={models.error} label="Models" />
      {models.data && models.data.data.length === 0 ? (
        <Empty>No model is configured. Set FATHOM_PROVIDERS (or OPENAI_API_KEY, ANTHROPIC_API_KEY) and restart the server.</Empty>
      ) : null}
      <div className="grid-form">
        <label htmlFor="pg-model">Model</label>
        <select id="pg-model" value={chosenModel} onChange={(event) => setModel(event.target.value)}>
          {(models.data?.data ?? []).map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.id}
            </option>
          ))}
        </select>
        <label htmlFor="pg-store">Search a vector store (file_search)</label>
        <select id="pg-store" value={storeId} onChange={(event) => setStoreId(event.target.value)}>
          <option value="">No store: plain chat</option>
          {(stores.data?.data ?? []).map((store) => (
            <option key={store.id} value={store.id}>
              {store.name || store.id}
            </option>
          ))}
        </select>
        <label htmlFor="pg-system">System prompt</label>
        <textarea id="pg-system" rows={2} value={system} onChange={(event) => setSystem(event.target.value)} />
      </div>
      <ol className="chat" aria-label="Conversation" aria-live="polite">
        {turns.map((turn, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the conversation only grows; a turn never moves.
          <li key={index} className={`turn ${turn.role}`}>
            <span className="role">{turn.role === 'user' ? 'You' : 'Model'}</span>
            <div className="text">{turn.content || (streaming && index === turns.length - 1 ? '…' : '')}</div>
            {turn.sources && turn.sources.length > 0 ? (
              <details open>
                <summary>Sources ({turn.sources.length})</summary>
                <ol aria-label="Citations">
                  {turn.sources.map((source, sourceIndex) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: sources of one answer never change order.
                    <li key={sourceIndex}>
                      <strong>{source.filename}</strong> score {source.score.toFixed(3)}
                      <blockquote>{source.text}</blockquote>
                    </li>
                  ))}
                </ol>
              </details>
            ) : null}
          </li>
        ))}
      </ol>
      <form className="composer" onSubmit={send}>
        <label htmlFor="pg-input">Message</label>
        <textarea
          id="pg-input"
          rows={3}
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) event.currentTarget.form?.requestSubmit();
          }}
        />
        <button type="submit" disabled={streaming || !chosenModel}>
          {streaming ? 'Streaming…' : 'Send'}
        </button>
      </form>
      <ErrorMessage error={error} />
    </Section>
  );
}
