import { useState } from 'react';
import type { Batch, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, Section, useApi, useLoad, usePoll } from '../components/ui';

const FINISHED = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** The account's batches with their progress, and downloads of their input, output and error files. */
export function BatchesPage() {
  const api = useApi();
  const batches = useLoad((signal) => api.get<List<Batch>>('/v1/batches', { limit: 100 }, signal), []);
  const [actionError, setActionError] = useState<Error | undefined>();
  const running = batches.data?.data.some((batch) => !FINISHED.has(batch.status)) ?? false;
  usePoll(running, 2000, batches.reload);

  const download = async (fileId: string, name: string) => {
    setActionError(undefined);
    try {
      const blob = await api.blob(`/v1/files/${encodeURIComponent(fileId)}/content`);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      setActionError(error as Error);
    }
  };

  const file = (fileId: string | undefined, label: string, batch: Batch) =>
    fileId ? (
      <button
        type="button"
        onClick={() => void download(fileId, `${batch.id}_${label}.jsonl`)}
        aria-label={`Download the ${label} file of ${batch.id}`}
      >
        {label}
      </button>
    ) : null;

  return (
    <Section title="Batches">
      <ErrorMessage error={batches.error ?? actionError} />
      {batches.data && batches.data.data.length === 0 ? (
        <Empty>No batches yet. Upload a JSONL file with purpose "batch" and create one with the API (docs/batches.md).</Empty>
      ) : null}
      {batches.data && batches.data.data.length > 0 ? (
        <table aria-label="Batches">
          <thead>
            <tr>
              <th scope="col">Batch</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Created</th>
              <th scope="col">Files</th>
            </tr>
          </thead>
          <tbody>
            {batches.data.data.map((batch) => {
              const counts = batch.request_counts;
              const done = counts.completed + counts.failed;
              return (
                <tr key={batch.id}>
                  <td>{batch.id}</td>
                  <td>{batch.endpoint}</td>
                  <td>{batch.status}</td>
                  <td>
                    <progress aria-label={`Progress of ${batch.id}`} max={Math.max(1, counts.total)} value={done} />{' '}
                    {`${done} / ${counts.total} (${counts.failed} failed)`}
                  </td>
                  <td>{formatDate(batch.created_at)}</td>
                  <td className="actions">
                    {file(batch.input_file_id, 'input', batch)}
                    {file(batch.output_file_id, 'output', batch)}
                    {file(batch.error_file_id, 'error', batch)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
