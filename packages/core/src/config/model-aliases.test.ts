import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { resolveModelAlias } from './model-aliases';

const base = { FATHOM_DATA_DIR: '/tmp/fathom-config-test', OPENAI_API_KEY: 'sk-test' };

describe('FATHOM_MODEL_ALIASES and FATHOM_DEFAULT_VENDOR', () => {
  it('reads aliases and a default vendor that name configured vendors', () => {
    const config = loadConfig({
      ...base,
      FATHOM_MODEL_ALIASES: '{"gpt-4o-mini": "openai/gpt-4o-mini", "fast": "ollama/llama3.2:1b"}',
      FATHOM_DEFAULT_VENDOR: 'openai',
    });
    expect(config.modelAliases).toEqual({ 'gpt-4o-mini': 'openai/gpt-4o-mini', fast: 'ollama/llama3.2:1b' });
    expect(config.defaultVendor).toBe('openai');
    expect(loadConfig(base)).toMatchObject({ modelAliases: {}, defaultVendor: undefined });
  });

  it.each([
    ['{"gpt-4o-mini": ', /^FATHOM_MODEL_ALIASES is not valid JSON/],
    ['["gpt-4o-mini"]', /^FATHOM_MODEL_ALIASES must be a JSON object/],
    ['{"gpt-4o-mini": "gpt-4o-mini"}', /^FATHOM_MODEL_ALIASES\["gpt-4o-mini"\] must be a "<vendor>\/<model>" string, got "gpt-4o-mini"/],
    ['{"gpt-4o-mini": 4}', /^FATHOM_MODEL_ALIASES\["gpt-4o-mini"\] must be a "<vendor>\/<model>" string, got 4/],
    ['{"x": "openai/"}', /^FATHOM_MODEL_ALIASES\["x"\] must be/],
    ['{"x": "azure/gpt-4o"}', /^FATHOM_MODEL_ALIASES\["x"\] names vendor 'azure', which is not configured \(configured: openai, ollama\)/],
  ])('refuses FATHOM_MODEL_ALIASES=%s at start-up, naming the variable', (value, message) => {
    expect(() => loadConfig({ ...base, FATHOM_MODEL_ALIASES: value })).toThrow(message);
  });

  it('refuses a default vendor that is not configured, naming the variable', () => {
    expect(() => loadConfig({ ...base, FATHOM_DEFAULT_VENDOR: 'azure' })).toThrow(
      "FATHOM_DEFAULT_VENDOR is 'azure', which is not a configured vendor (configured: openai, ollama).",
    );
  });

  it('resolves an alias first, then the default vendor for ids without /, and leaves the rest alone', () => {
    const config = { modelAliases: { 'gpt-4o-mini': 'openai/gpt-4o-mini', 'openai/old': 'ollama/new' }, defaultVendor: 'ollama' };
    expect(resolveModelAlias('gpt-4o-mini', config)).toBe('openai/gpt-4o-mini');
    expect(resolveModelAlias('openai/old', config)).toBe('ollama/new');
    expect(resolveModelAlias('llama3', config)).toBe('ollama/llama3');
    expect(resolveModelAlias('anthropic/claude', config)).toBe('anthropic/claude');
    expect(resolveModelAlias('constructor', { modelAliases: {} })).toBe('constructor');
  });
});
