import type { FathomConfig } from '../config';
import { NotFoundError } from '../errors';
import type { Logger } from '../internal/logger';
import type { ChatAdapter } from './chat-adapter';
import type { Model, ModelsPage } from './wire/models';

/** How long an upstream's list of models is reused, ms. */
const MODELS_CACHE_MS = 60_000;
const MODELS_TIMEOUT_MS = 5_000;

export interface ModelsOptions {
  router: Pick<ChatAdapter, 'vendors' | 'provider' | 'configuredModels'>;
  config: Pick<FathomConfig, 'modelAliases'>;
  log: Logger;
}

/**
 * `fathom.models` (OpenAI's `models`): every model of every configured vendor as `<vendor>/<model>`,
 * then each `FATHOM_MODEL_ALIASES` entry, owned by the vendor it points to. A vendor's list comes from
 * its `models` in `FATHOM_PROVIDERS`, else from its upstream (cached 60 s; an unreachable upstream
 * lists nothing, also for 60 s). Models are the installation's, the same for every account.
 */
export class Models {
  readonly #options: ModelsOptions;
  readonly #cache = new Map<string, { at: number; models: Promise<readonly string[]> }>();

  constructor(options: ModelsOptions) {
    this.#options = options;
  }

  async list(): Promise<ModelsPage> {
    const { router, config } = this.#options;
    const lists = await Promise.all(
      router
        .vendors()
        .map(async (vendor) =>
          (await this.#vendorModels(vendor)).map(
            (name): Model => ({ id: `${vendor}/${name}`, object: 'model', created: 0, owned_by: vendor }),
          ),
        ),
    );
    const models = lists.flat();
    const listed = new Set(models.map((model) => model.id));
    for (const [alias, target] of Object.entries(config.modelAliases ?? {})) {
      if (!listed.has(alias)) models.push({ id: alias, object: 'model', created: 0, owned_by: target.slice(0, target.indexOf('/')) });
    }
    return { object: 'list', data: models };
  }

  /** One listed model (`<vendor>/<model>` or an alias); 404 when it is not listed. */
  async retrieve(model: string): Promise<Model> {
    const found = (await this.list()).data.find((entry) => entry.id === model);
    if (!found) throw new NotFoundError('model', model, 'model');
    return found;
  }

  #vendorModels(vendor: string): Promise<readonly string[]> {
    const { router, log } = this.#options;
    const fixed = router.configuredModels(vendor);
    if (fixed) return Promise.resolve(fixed);
    const cached = this.#cache.get(vendor);
    if (cached && Date.now() - cached.at < MODELS_CACHE_MS) return cached.models;
    // A failure is cached like an answer (as an empty list), so an unreachable upstream costs one wait per minute.
    const models = (router.provider(vendor)?.listModels(AbortSignal.timeout(MODELS_TIMEOUT_MS)) ?? Promise.resolve([])).catch(
      (error: Error) => {
        log.warn(`models: could not list models of '${vendor}': ${error.message}`);
        return [] as string[];
      },
    );
    this.#cache.set(vendor, { at: Date.now(), models });
    return models;
  }
}
