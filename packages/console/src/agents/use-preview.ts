import { useEffect, useMemo, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { WorkflowToolsPreview } from '../api/types';
import type { Workflow } from './workflow-model';

/** `POST /v1/agents/tools`. */
export type ToolsPreview = WorkflowToolsPreview;

/**
 * Asks the server (`POST /v1/agents/tools`) for the tools and the validation result of the current
 * workflow, 300 ms after the last change. Moving nodes does not count as a change.
 */
export function usePreview(api: ApiClient, workflow: Workflow): { preview?: ToolsPreview; error?: Error } {
  const key = useMemo(() => JSON.stringify(workflow, (name, value) => (name === 'position' ? undefined : value)), [workflow]);
  const [state, setState] = useState<{ preview?: ToolsPreview; error?: Error }>({});
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api.post<ToolsPreview>('/v1/agents/tools', { workflow: JSON.parse(key) }, controller.signal).then(
        (preview) => setState({ preview }),
        (error: Error) => !controller.signal.aborted && setState((previous) => ({ ...previous, error })),
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [api, key]);
  return state;
}
