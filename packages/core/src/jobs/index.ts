// Data tools: `fathom.tools` (the catalog) and `fathom.jobs`, their wire format, and the ToolSource contract with its built-in sources.
export type { DataTools } from './data-tools';
export type { Jobs } from './jobs';
export type { DataToolsOptions } from './create-data-tools';
export { jobsSchema } from './schema';
export { TOOL_CATALOG, TOOL_POLICY, findTool, type ToolDefinition } from './catalog';
export { SqlJobsRepository, type JobsRepository, type JobRow } from './job-store';
export {
  DataTool,
  DataToolCatalog,
  JobStatus,
  ToolItem,
  ToolJob,
  ToolJobEnvelope,
  ToolJobInput,
  ToolJobInputs,
  ToolJobListParams,
  ToolJobsPage,
  ToolJobStarted,
} from './wire/data-tools';
export type { ToolSource, ToolOutput, ToolRunOptions } from './types';
export { ApifySource, type ApifySourceOptions } from './sources/apify-source';
export { HttpSource, type HttpSourceOptions } from './sources/http-source';
export { OsmMapsSource, type OsmMapsSourceOptions } from './sources/osm-maps-source';
export { WebsiteContactsSource, type WebsiteContactsOptions } from './sources/website-contacts-source';
export { SocialProfileSource, type SocialProfileSourceOptions } from './sources/social-profile-source';
export { NlDataSource, type NlDataSourceOptions } from './sources/nl-data-source';
