// Data tools: the catalog, the job engine and the ToolSource contract with its built-in sources.
export { JobEngine, type JobEngineOptions } from './job-engine';
export { jobsSchema } from './schema';
export { TOOL_CATALOG, TOOL_POLICY, findTool, type ToolDefinition } from './catalog';
export { SqlJobsRepository, type JobsRepository, type JobRow, type ToolJob, type JobStatus } from './job-store';
export type { ToolSource, ToolItem, ToolOutput, ToolRunOptions } from './types';
export type { JobSettings } from './settings';
export { ApifySource, type ApifySourceOptions } from './sources/apify-source';
export { HttpSource, type HttpSourceOptions } from './sources/http-source';
export { OsmMapsSource, type OsmMapsSourceOptions } from './sources/osm-maps-source';
export { WebsiteContactsSource, type WebsiteContactsOptions } from './sources/website-contacts-source';
export { SocialProfileSource, type SocialProfileSourceOptions } from './sources/social-profile-source';
export { NlDataSource, type NlDataSourceOptions } from './sources/nl-data-source';
