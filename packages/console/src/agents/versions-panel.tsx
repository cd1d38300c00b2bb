import { useState } from 'react';
import type { AgentVersion as Version, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, useAction, useApi, useLoad } from '../components/ui';
import type { Workflow } from './workflow-model';

/** The published versions; one can be viewed, or loaded back into the draft (saved with "Save draft"). */
export function VersionsPanel({
  agentId,
  refreshKey,
  onRestore,
}: {
  agentId: string;
  refreshKey: unknown;
  onRestore(workflow: Workflow, name: string): void;
}) {
  const api = useApi();
  const base = `/v1/agents/${encodeURIComponent(agentId)}/versions`;
  const versions = useLoad((signal) => api.get<List<Version>>(base, undefined, signal), [base, refreshKey]);
  const [shown, setShown] = useState<{ version: number; workflow: Workflow } | undefined>();
  const load = async (version: number) => (await api.get<{ version: Version & { workflow: Workflow } }>(`${base}/${version}`)).version;
  const view = useAction(async (version: number) => setShown({ version, workflow: (await load(version)).workflow }));
  const restore = useAction(async (version: number) => {
    const found = await load(version);
    onRestore(found.workflow, found.name);
  });
  return (
    <div className="versions">
      <ErrorMessage error={versions.error ?? view.error ?? restore.error} />
      {versions.data && versions.data.data.length === 0 ? <Empty>Nothing published yet.</Empty> : null}
      <ul className="plain" aria-label="Versions">
        {(versions.data?.data ?? []).map((version) => (
          <li key={version.id}>
            Version {version.version} · {version.name} · {formatDate(version.created_at)}{' '}
            <button type="button" onClick={() => void view.run(version.version)}>
              View version {version.version}
            </button>{' '}
            <button type="button" onClick={() => void restore.run(version.version)}>
              Restore version {version.version} to the draft
            </button>
          </li>
        ))}
      </ul>
      {shown ? <pre>{JSON.stringify(shown.workflow, null, 2)}</pre> : null}
    </div>
  );
}
