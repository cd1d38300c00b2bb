import { useState, type FormEvent } from 'react';
import type { DataTool, Job, List } from '../api/types';
import { BalanceAndLedger } from '../components/ledger';
import { SchemaForm } from '../components/schema-form';
import { Empty, ErrorMessage, formatDate, formatMoney, Section, useAction, useApi, useLoad, usePoll } from '../components/ui';

/** The catalog with a form per tool's `input_schema`, the jobs with status/cost/cached, and result items. */
export function DataToolsPage() {
  const api = useApi();
  const catalog = useLoad((signal) => api.get<List<DataTool>>('/v1/tools', undefined, signal), []);
  const jobs = useLoad((signal) => api.get<List<Job>>('/v1/tools/jobs', { limit: 50 }, signal), []);
  const [toolName, setToolName] = useState('');
  const [input, setInput] = useState<Record<string, unknown>>({});
  const [jobId, setJobId] = useState<string | undefined>();
  const tool = catalog.data?.data.find((entry) => entry.name === toolName);
  const active = Boolean(jobs.data?.data.some((job) => job.status === 'queued' || job.status === 'running'));
  usePoll(active, 1000, jobs.reload);

  const start = useAction(async (event: FormEvent) => {
    event.preventDefault();
    if (!tool) return;
    const answer = await api.post<{ data: { job_id: string } }>(`/v1/tools/${encodeURIComponent(tool.name)}`, input);
    setJobId(answer.data.job_id);
    jobs.reload();
  });

  return (
    <>
      <Section title="Catalog">
        <ErrorMessage error={catalog.error} />
        <div className="grid-form">
          <label htmlFor="tool-select">Tool</label>
          <select
            id="tool-select"
            value={toolName}
            onChange={(event) => {
              setToolName(event.target.value);
              setInput({});
            }}
          >
            <option value="">Choose a tool…</option>
            {(catalog.data?.data ?? []).map((entry) => (
              <option key={entry.name} value={entry.name}>
                {entry.name} (ceiling {formatMoney(entry.estimated_max_cost)}){entry.available ? '' : ' — not configured'}
              </option>
            ))}
          </select>
        </div>
        {tool ? (
          <form onSubmit={start.run} aria-label={`Start ${tool.name}`}>
            <p>{tool.description}</p>
            <SchemaForm schema={tool.input_schema} value={input} onChange={setInput} idPrefix={`tool-${tool.name}`} />
            <button type="submit" disabled={start.pending}>
              Start job
            </button>
            <ErrorMessage error={start.error} />
          </form>
        ) : (
          <Empty>Choose a tool to see its input form.</Empty>
        )}
      </Section>
      <Section title="Jobs">
        <ErrorMessage error={jobs.error} />
        {jobs.data && jobs.data.data.length === 0 ? <Empty>No jobs yet. Start one from the catalog above.</Empty> : null}
        {jobs.data && jobs.data.data.length > 0 ? (
          <table aria-label="Jobs">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">Cost</th>
                <th scope="col">Cached</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.data.map((job) => (
                <tr key={job.job_id} aria-current={job.job_id === jobId ? 'true' : undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => setJobId(job.job_id)} aria-label={`Show job ${job.job_id}`}>
                      {job.job_id}
                    </button>
                  </td>
                  <td>{job.tool}</td>
                  <td>
                    <span className={`status status-${job.status}`}>{job.status}</span>
                  </td>
                  <td className="number">{formatMoney(job.cost)}</td>
                  <td>{job.cached ? 'yes' : 'no'}</td>
                  <td>{formatDate(job.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      {jobId ? <JobResult key={jobId} jobId={jobId} onFinished={jobs.reload} /> : null}
      <BalanceAndLedger refreshKey={jobs.data} />
    </>
  );
}

function JobResult({ jobId, onFinished }: { jobId: string; onFinished(): void }) {
  const api = useApi();
  const job = useLoad(
    async (signal) => (await api.get<{ data: Job }>(`/v1/tools/jobs/${encodeURIComponent(jobId)}`, undefined, signal)).data,
    [jobId],
  );
  const running = !job.data || job.data.status === 'queued' || job.data.status === 'running';
  usePoll(running && !job.error, 1000, () => {
    job.reload();
    if (job.data && !(job.data.status === 'queued' || job.data.status === 'running')) onFinished();
  });
  const items = job.data?.result?.items ?? [];
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const error = job.data?.error;
  return (
    <Section title={`Job ${jobId}`}>
      <ErrorMessage error={job.error} />
      {job.data ? (
        <p aria-live="polite">
          Status: <strong>{job.data.status}</strong> · cost {formatMoney(job.data.cost)} · ceiling{' '}
          {formatMoney(job.data.estimated_max_cost)} · {job.data.cached ? 'served from cache' : 'not cached'}
        </p>
      ) : null}
      {error ? <ErrorMessage error={typeof error === 'string' ? error : error.message} /> : null}
      {job.data?.status === 'succeeded' && items.length === 0 ? <Empty>The job finished with no items.</Empty> : null}
      {items.length > 0 ? (
        <div className="table-scroll">
          <table aria-label="Result items">
            <thead>
              <tr>
                {columns.map((column) => (
                  <th scope="col" key={column}>
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items.map((item, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: result items have no id; the table is read-only.
                <tr key={index}>
                  {columns.map((column) => (
                    <td key={column}>{cell(item[column])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Section>
  );
}

const cell = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
