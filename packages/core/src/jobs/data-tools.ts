import { NotFoundError } from '../errors';
import { findTool, TOOL_CATALOG, type ToolDefinition } from './catalog';
import type { ConfiguredSources } from './sources/create-tool-sources';
import type { DataTool, DataToolCatalog } from './wire/data-tools';

/**
 * `fathom.tools`: the data-tool catalog (spec "Data tools"). Each entry says whether this installation
 * has a source configured for the tool (`available`); starting a job is `fathom.jobs.create`.
 */
export class DataTools {
  readonly #sources: ConfiguredSources;

  constructor(sources: ConfiguredSources) {
    this.#sources = sources;
  }

  /** The ten tools, in the catalog's order. */
  list(): DataToolCatalog {
    return { object: 'list', data: TOOL_CATALOG.map((definition) => this.#entry(definition)) };
  }

  /** One tool's catalog entry; 404 for an unknown tool. */
  retrieve(tool: string): DataTool {
    const definition = findTool(tool);
    if (!definition) throw new NotFoundError('tool', tool, 'tool');
    return this.#entry(definition);
  }

  #entry({ name, path, description, estimated_max_cost, input_schema, item_fields }: ToolDefinition): DataTool {
    return {
      object: 'tool',
      name,
      path,
      description,
      estimated_max_cost,
      input_schema,
      item_fields,
      available: this.#sources.sources.has(name),
    };
  }
}
