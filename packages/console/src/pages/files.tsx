import { useState, type DragEvent } from 'react';
import type { FileObject, List } from '../api/types';
import { Empty, ErrorMessage, formatBytes, formatDate, Section, useApi, useLoad } from '../components/ui';

interface Upload {
  id: number;
  name: string;
  progress: number;
  error?: Error;
  done?: boolean;
}

let uploadCounter = 0;

/** Upload by drag and drop (or the file picker) with progress; list, download and delete files. */
export function FilesPage() {
  const api = useApi();
  const files = useLoad((signal) => api.get<List<FileObject>>('/v1/files', { limit: 100 }, signal), []);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const [actionError, setActionError] = useState<Error | undefined>();

  const update = (id: number, change: Partial<Upload>) =>
    setUploads((list) => list.map((entry) => (entry.id === id ? { ...entry, ...change } : entry)));

  const uploadAll = async (list: FileList | File[]) => {
    await Promise.all(
      [...list].map(async (file) => {
        const id = ++uploadCounter;
        setUploads((current) => [...current, { id, name: file.name, progress: 0 }]);
        const form = new FormData();
        form.append('purpose', 'assistants');
        form.append('file', file, file.name);
        try {
          await api.upload('/v1/files', form, (fraction) => update(id, { progress: fraction }));
          update(id, { done: true, progress: 1 });
        } catch (error) {
          update(id, { error: error as Error });
        }
      }),
    );
    files.reload();
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length > 0) void uploadAll(event.dataTransfer.files);
  };

  const download = async (file: FileObject) => {
    setActionError(undefined);
    try {
      const blob = await api.blob(`/v1/files/${encodeURIComponent(file.id)}/content`);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = file.filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      setActionError(error as Error);
    }
  };

  const remove = async (file: FileObject) => {
    setActionError(undefined);
    try {
      await api.delete(`/v1/files/${encodeURIComponent(file.id)}`);
      files.reload();
    } catch (error) {
      setActionError(error as Error);
    }
  };

  return (
    <>
      <Section title="Upload">
        <label
          className={`dropzone${dragging ? ' dragging' : ''}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <span>Drop files here (PDF, DOCX, text, Markdown, HTML, JSON, CSV, code; up to 25 MB), or choose them</span>
          <input
            type="file"
            multiple
            aria-label="Choose files to upload"
            onChange={(event) => {
              if (event.target.files) void uploadAll(event.target.files);
              event.target.value = '';
            }}
          />
        </label>
        {uploads.length > 0 ? (
          <ul className="uploads" aria-label="Uploads">
            {uploads.map((upload) => (
              <li key={upload.id}>
                <span>{upload.name}</span>
                <progress aria-label={`Upload of ${upload.name}`} max={1} value={upload.progress} />
                {upload.error ? <ErrorMessage error={upload.error} /> : upload.done ? <span>uploaded</span> : null}
              </li>
            ))}
          </ul>
        ) : null}
      </Section>
      <Section title="Files">
        <ErrorMessage error={files.error ?? actionError} />
        {files.data && files.data.data.length === 0 ? <Empty>No files yet. Drop one above to upload it.</Empty> : null}
        {files.data && files.data.data.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Size</th>
                <th scope="col">Purpose</th>
                <th scope="col">Uploaded</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {files.data.data.map((file) => (
                <tr key={file.id}>
                  <td>{file.filename}</td>
                  <td>{formatBytes(file.bytes)}</td>
                  <td>{file.purpose}</td>
                  <td>{formatDate(file.created_at)}</td>
                  <td className="actions">
                    <button type="button" onClick={() => void download(file)} aria-label={`Download ${file.filename}`}>
                      Download
                    </button>
                    <button type="button" onClick={() => void remove(file)} aria-label={`Delete ${file.filename}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
    </>
  );
}
