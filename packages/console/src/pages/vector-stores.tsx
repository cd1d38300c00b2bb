import { useState, type FormEvent } from 'react';
import type { FileObject, List, VectorStore, VectorStoreFile } from '../api/types';
import { Empty, ErrorMessage, formatBytes, formatDate, Section, useAction, useApi, useLoad, usePoll } from '../components/ui';
import { SearchPlayground } from './search-playground';

/** Vector stores with live `file_counts`; one store's files with status and `last_error`, and search. */
export function VectorStoresPage({ storeId }: { storeId?: string }) {
  const api = useApi();
  const stores = useLoad((signal) => api.get<List<VectorStore>>('/v1/vector_stores', { limit: 100 }, signal), []);
  const [name, setName] = useState('');
  const create = useAction(async (event: FormEvent) => {
    event.preventDefault();
    const store = await api.post<VectorStore>('/v1/vector_stores', { name });
    setName('');
    stores.reload();
    window.location.hash = `#/stores/${encodeURIComponent(store.id)}`;
  });
  usePoll(Boolean(stores.data?.data.some((store) => store.file_counts.in_progress > 0)), 1000, stores.reload);

  return (
    <>
      <Section title="Vector stores">
        <form className="inline" onSubmit={create.run}>
          <label htmlFor="store-name">New store name</label>
          <input id="store-name" value={name} onChange={(event) => setName(event.target.value)} required />
          <button type="submit" disabled={create.pending}>
            Create store
          </button>
        </form>
        <ErrorMessage error={stores.error ?? create.error} />
        {stores.data && stores.data.data.length === 0 ? <Empty>No vector stores yet. Create one, then add files to it.</Empty> : null}
        {stores.data && stores.data.data.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Files (completed / in progress / failed / total)</th>
                <th scope="col">Size</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {stores.data.data.map((store) => (
                <tr key={store.id} aria-current={store.id === storeId ? 'true' : undefined}>
                  <td>
                    <a href={`#/stores/${encodeURIComponent(store.id)}`}>{store.name || store.id}</a>
                  </td>
                  <td>
                    {store.file_counts.completed} / {store.file_counts.in_progress} / {store.file_counts.failed} / {store.file_counts.total}
                  </td>
                  <td>{formatBytes(store.usage_bytes)}</td>
                  <td>{formatDate(store.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      {storeId ? <StoreDetail key={storeId} storeId={storeId} onChange={stores.reload} /> : null}
    </>
  );
}

function StoreDetail({ storeId, onChange }: { storeId: string; onChange(): void }) {
  const api = useApi();
  const path = `/v1/vector_stores/${encodeURIComponent(storeId)}`;
  const store = useLoad((signal) => api.get<VectorStore>(path, undefined, signal), [path]);
  const storeFiles = useLoad((signal) => api.get<List<VectorStoreFile>>(`${path}/files`, { limit: 100 }, signal), [path]);
  const files = useLoad((signal) => api.get<List<FileObject>>('/v1/files', { limit: 100 }, signal), []);
  const [fileId, setFileId] = useState('');
  const names = new Map((files.data?.data ?? []).map((file) => [file.id, file.filename]));
  const busy = Boolean(storeFiles.data?.data.some((file) => file.status === 'in_progress'));
  usePoll(busy, 1000, () => {
    storeFiles.reload();
    store.reload();
  });
  const add = useAction(async (event: FormEvent) => {
    event.preventDefault();
    await api.post(`${path}/files`, { file_id: fileId });
    setFileId('');
    storeFiles.reload();
    store.reload();
    onChange();
  });
  const remove = useAction(async (id: string) => {
    await api.delete(`${path}/files/${encodeURIComponent(id)}`);
    storeFiles.reload();
    store.reload();
    onChange();
  });
  const counts = store.data?.file_counts;

  return (
    <>
      <Section title={`Store: ${store.data?.name || storeId}`}>
        <ErrorMessage error={store.error ?? storeFiles.error} />
        {counts ? (
          <p aria-live="polite">
            {counts.completed} completed, {counts.in_progress} in progress, {counts.failed} failed, {counts.cancelled} cancelled of{' '}
            {counts.total}
          </p>
        ) : null}
        <form className="inline" onSubmit={add.run}>
          <label htmlFor="add-file">File to add</label>
          <select id="add-file" value={fileId} onChange={(event) => setFileId(event.target.value)} required>
            <option value="">Choose a file…</option>
            {(files.data?.data ?? []).map((file) => (
              <option key={file.id} value={file.id}>
                {file.filename}
              </option>
            ))}
          </select>
          <button type="submit" disabled={add.pending || !fileId}>
            Add to store
          </button>
        </form>
        <ErrorMessage error={add.error ?? remove.error} />
        {storeFiles.data && storeFiles.data.data.length === 0 ? <Empty>This store has no files. Add an uploaded file above.</Empty> : null}
        {storeFiles.data && storeFiles.data.data.length > 0 ? (
          <table aria-label="Store files">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Status</th>
                <th scope="col">Last error</th>
                <th scope="col">Size</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {storeFiles.data.data.map((file) => (
                <tr key={file.id}>
                  <td>{names.get(file.id) ?? file.id}</td>
                  <td>
                    <span className={`status status-${file.status}`}>{file.status}</span>
                  </td>
                  <td>{file.last_error ? `${file.last_error.code}: ${file.last_error.message}` : '—'}</td>
                  <td>{formatBytes(file.usage_bytes)}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => void remove.run(file.id)}
                      aria-label={`Remove ${names.get(file.id) ?? file.id} from the store`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      <SearchPlayground storeId={storeId} />
    </>
  );
}
