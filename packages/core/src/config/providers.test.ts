import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const base = { FATHOM_DATA_DIR: '/tmp/fathom-config-test' };

describe('FATHOM_PROVIDERS', () => {
  it('reads each vendor with its type, base URL, key and static model list', () => {
    const config = loadConfig({
      ...base,
      FATHOM_PROVIDERS:
        '{"vllm": {"type": "openai", "baseUrl": "http://10.0.0.5:8000/v1", "models": ["qwen3"]}, "claude": {"type": "anthropic", "baseUrl": "https://api.anthropic.com/v1", "apiKey": "sk-ant-test"}}',
    });
    expect(config.providers.vllm).toEqual({ type: 'openai', baseUrl: 'http://10.0.0.5:8000/v1', apiKey: undefined, models: ['qwen3'] });
    expect(config.providers.claude).toEqual({
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: 'sk-ant-test',
      models: undefined,
    });
  });

  it.each([
    ['{"vllm": ', /^FATHOM_PROVIDERS is not valid JSON/],
    ['["vllm"]', /^FATHOM_PROVIDERS must be a JSON object/],
    ['{"vllm": null}', /^FATHOM_PROVIDERS\.vllm needs type "openai" or "anthropic" and a baseUrl string\.$/],
    ['{"vllm": {"type": "azure", "baseUrl": "http://x"}}', /^FATHOM_PROVIDERS\.vllm needs type "openai" or "anthropic"/],
    ['{"vllm": {"type": "openai", "baseUrl": "http://x", "apiKey": 42}}', /^FATHOM_PROVIDERS\.vllm\.apiKey must be a string\.$/],
    [
      '{"vllm": {"type": "openai", "baseUrl": "http://x", "models": "qwen3"}}',
      /^FATHOM_PROVIDERS\.vllm\.models must be an array of model names/,
    ],
    ['{"vllm": {"type": "openai", "baseUrl": "http://x", "models": ["qwen3", 3]}}', /^FATHOM_PROVIDERS\.vllm\.models must be an array/],
  ])('refuses FATHOM_PROVIDERS=%s at start-up, naming the variable', (value, message) => {
    expect(() => loadConfig({ ...base, FATHOM_PROVIDERS: value })).toThrow(message);
  });
});
