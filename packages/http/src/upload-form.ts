import { FathomError, FileCreateFields, FileTooLargeError, InvalidRequestError, type Fathom, type StagedUpload } from '@fathom/core';
import type { FastifyRequest } from 'fastify';
import { MAX_UPLOAD_BYTES } from './body-limits';
import { checkValue } from './validators';

/** What `POST /v1/files` sent: the file staged on disk, its name, and the other fields, checked against `FileCreateFields`. */
export interface UploadForm {
  staged: StagedUpload;
  filename: string;
  fields: FileCreateFields;
}

async function drain(stream: NodeJS.ReadableStream): Promise<void> {
  for await (const _ of stream as AsyncIterable<unknown>);
}

/**
 * A failure of the multipart parser (no boundary, a body cut before its closing boundary, a malformed
 * part header) is the client's: 400 naming it. Errors with a fastify code are answered by the error
 * handler; file-system errors (a full disk) stay server errors.
 */
function asClientError(error: unknown): unknown {
  if (error instanceof FathomError) return error;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (syscall !== undefined || (typeof code === 'string' && code.startsWith('FST_'))) return error;
  if (error instanceof Error) {
    return new InvalidRequestError(`Invalid multipart/form-data body: ${error.message.replace(/^Multipart: /, '')}.`, null);
  }
  return error;
}

/**
 * Reads the multipart form of an upload: streams the part named `file` to a staged file (at most 25 MB;
 * busboy flags a longer one as truncated) and keeps the other fields, whatever the order of the parts,
 * checked against the declared `FileCreateFields` (400 naming the field; the staged bytes are discarded). The
 * parts iteration of @fastify/multipart >= 10.1 ends only on the parser's own end events, so parts sent
 * after the file (the SDK sends `purpose` last) are never dropped on reused connections.
 */
export async function readUploadForm(fathom: Fathom, request: FastifyRequest): Promise<UploadForm> {
  if (!request.isMultipart()) {
    throw new InvalidRequestError("Expected a multipart/form-data body with the fields 'file' and 'purpose'.", 'file');
  }
  const { files } = fathom;
  let staged: StagedUpload | undefined;
  let filename = '';
  let purpose: string | undefined;
  // OpenAI's multipart form spells the object as `expires_after[anchor]` and `expires_after[seconds]`.
  const expiresAfter: Record<string, string> = {};
  let tooLarge = false;
  try {
    // The rest of the body is still read after an oversized file, so the 413 arrives cleanly.
    for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES }, throwFileSizeLimit: false } as Parameters<
      typeof request.parts
    >[0])) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || staged || tooLarge) {
          await drain(part.file);
          continue;
        }
        const upload = await files.stage(part.file);
        if (part.file.truncated) {
          files.discard(upload);
          tooLarge = true;
        } else {
          staged = upload;
          filename = part.filename;
        }
      } else if (part.fieldname === 'purpose') {
        purpose = String(part.value);
      } else if (/^expires_after\[(anchor|seconds)\]$/.test(part.fieldname)) {
        expiresAfter[part.fieldname.slice(14, -1)] = String(part.value);
      }
    }
  } catch (error) {
    if (staged) files.discard(staged);
    throw asClientError(error);
  }
  if (tooLarge) throw new FileTooLargeError(MAX_UPLOAD_BYTES);
  const sent = {
    ...(purpose === undefined ? {} : { purpose }),
    ...(Object.keys(expiresAfter).length ? { expires_after: expiresAfter } : {}),
  };
  let fields: FileCreateFields;
  try {
    fields = checkValue(FileCreateFields, sent, { coerce: true });
  } catch (error) {
    if (staged) files.discard(staged);
    if (!staged && error instanceof InvalidRequestError) {
      throw new InvalidRequestError(`Missing required parameter: 'file'. ${error.message}`, 'file', 'missing_required_parameter');
    }
    throw error;
  }
  if (!staged) throw new InvalidRequestError("Missing required parameter: 'file'.", 'file', 'missing_required_parameter');
  return { staged, filename, fields };
}
