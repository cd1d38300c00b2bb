import type { Agents, StartNode } from '../agents';
import type { Files, VectorStores } from '../documents';
import type { DocumentFileContents } from '../documents/file-contents';
import type { DataTools, Jobs } from '../jobs';
import type { StoreSearcher } from '../vector';
import type { McpSources, PublishedAgent } from './sources';

/** The capabilities of a `Fathom` the MCP server reads and runs. */
export interface McpCapabilities {
  files: Files;
  vectorStores: VectorStores;
  /** The documents' search across stores (the engine of `POST /v1/vector_stores/{id}/search`). */
  searcher: StoreSearcher;
  fileContents: DocumentFileContents;
  tools: DataTools;
  jobs: Jobs;
  agents: Agents;
}

/** Agents listed per page while looking for the published ones. */
const AGENT_PAGE = 100;

/**
 * The one place the MCP server meets the other capabilities' classes: each contract method is one call
 * of the public API the HTTP routes call, so what an MCP client gets is what the route answers.
 */
export function mcpSourcesOf(capabilities: McpCapabilities): McpSources {
  const { files, vectorStores, searcher, fileContents, tools, jobs, agents } = capabilities;
  return {
    documents: {
      search: (accountId, storeIds, options) => searcher.search(accountId, storeIds, options),
      listVectorStores: (accountId, page) => vectorStores.list(accountId, { ...page, order: 'asc' }),
      listFiles: (accountId, page) => files.list(accountId, { ...page, order: 'asc' }),
      retrieveFile: (accountId, fileId) => files.retrieve(accountId, fileId),
      listStoreFiles: (accountId, storeId, page) => vectorStores.files.list(accountId, storeId, { ...page, order: 'asc' }),
      fileText: async (accountId, fileId) => (await fileContents.fileText(accountId, fileId, 'uri')).text,
      storeFileText: async (accountId, storeId, fileId) =>
        (await vectorStores.files.content(accountId, storeId, fileId)).data.map((part) => part.text).join('\n'),
    },
    dataTools: {
      catalog: () => tools.list().data,
      startJob: (accountId, tool, input) => jobs.create(accountId, tool, input),
      getJob: (accountId, jobId) => jobs.retrieve(accountId, jobId),
    },
    agents: {
      async listPublished(accountId) {
        const published: PublishedAgent[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await agents.list(accountId, { limit: AGENT_PAGE, order: 'asc', after });
          for (const agent of page.data) {
            if (agent.version !== null) published.push({ id: agent.id, name: agent.name, version: agent.version });
          }
          if (!page.has_more || !page.last_id) return published;
          after = page.last_id;
        }
      },
      async startVariables(accountId, agentId, version) {
        const { workflow } = await agents.versions.retrieve(accountId, agentId, version);
        return workflow.nodes.find((node): node is StartNode => node.type === 'start')?.data.variables ?? [];
      },
      async run(accountId, agentId, input, signal) {
        const started = await agents.runs.stream(accountId, agentId, input);
        return started.events(signal);
      },
      async publishedTools(accountId, agentId) {
        const { agent, variables, tools } = await agents.publishedTools(accountId, agentId);
        return {
          ...agent,
          variables,
          tools: [...tools.values()].map(({ definition, run }) => ({
            name: definition.function.name,
            description: definition.function.description,
            parameters: definition.function.parameters,
            run,
          })),
        };
      },
    },
  };
}
