import type { ProviderConfig } from './config';

/** Model ids an installation maps for unmodified apps: `FATHOM_MODEL_ALIASES` and `FATHOM_DEFAULT_VENDOR`. */
export interface ModelAliasConfig {
  /** `FATHOM_MODEL_ALIASES`: model id -> `<vendor>/<model>`, e.g. `gpt-4o-mini` -> `openai/gpt-4o-mini`. */
  modelAliases: Record<string, string>;
  /** `FATHOM_DEFAULT_VENDOR`: vendor of a model id without `/` that has no alias. */
  defaultVendor?: string;
}

function configuredList(providers: Record<string, ProviderConfig>): string {
  const vendors = Object.keys(providers);
  return vendors.length ? vendors.join(', ') : '(none)';
}

/**
 * Reads `FATHOM_MODEL_ALIASES` (a JSON object of model id -> `<vendor>/<model>`) and
 * `FATHOM_DEFAULT_VENDOR`. Every target must name a configured vendor; a bad value stops start-up with
 * a message naming the variable and the entry.
 */
export function parseModelAliases(env: Record<string, string | undefined>, providers: Record<string, ProviderConfig>): ModelAliasConfig {
  const modelAliases: Record<string, string> = {};
  const raw = env.FATHOM_MODEL_ALIASES;
  if (raw !== undefined && raw.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new Error(`FATHOM_MODEL_ALIASES is not valid JSON: ${(error as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(
        'FATHOM_MODEL_ALIASES must be a JSON object: model id -> "<vendor>/<model>", e.g. {"gpt-4o-mini": "openai/gpt-4o-mini"}.',
      );
    }
    for (const [alias, target] of Object.entries(parsed as Record<string, unknown>)) {
      const slash = typeof target === 'string' ? target.indexOf('/') : -1;
      if (alias.trim() === '' || typeof target !== 'string' || slash <= 0 || slash === target.length - 1) {
        throw new Error(`FATHOM_MODEL_ALIASES["${alias}"] must be a "<vendor>/<model>" string, got ${JSON.stringify(target)}.`);
      }
      const vendor = target.slice(0, slash);
      if (!providers[vendor]) {
        throw new Error(
          `FATHOM_MODEL_ALIASES["${alias}"] names vendor '${vendor}', which is not configured (configured: ${configuredList(providers)}).`,
        );
      }
      modelAliases[alias] = target;
    }
  }
  const defaultVendor = env.FATHOM_DEFAULT_VENDOR?.trim() || undefined;
  if (defaultVendor !== undefined && !providers[defaultVendor]) {
    throw new Error(
      `FATHOM_DEFAULT_VENDOR is '${defaultVendor}', which is not a configured vendor (configured: ${configuredList(providers)}).`,
    );
  }
  return { modelAliases, defaultVendor };
}

/**
 * The `<vendor>/<model>` id `model` stands for: its alias, else `<default vendor>/<model>` for an id
 * without `/`, else the id itself (which may still name no configured vendor: callers answer 400).
 */
export function resolveModelAlias(model: string, config: Partial<ModelAliasConfig>): string {
  const alias = config.modelAliases && Object.hasOwn(config.modelAliases, model) ? config.modelAliases[model] : undefined;
  if (alias) return alias;
  if (config.defaultVendor && model !== '' && !model.includes('/')) return `${config.defaultVendor}/${model}`;
  return model;
}
