/**
 * The console's one door to Fathom: the public /v1 API of the server that served the page, called
 * with the signed-in API key. Every failure becomes an `ApiError` carrying the API's own message.
 */

export interface ApiErrorBody {
  message: string;
  type?: string;
  param?: string | null;
  code?: string | null;
}

export class ApiError extends Error {
  readonly status: number;
  readonly param: string | null;
  readonly code: string | null;

  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.param = body.param ?? null;
    this.code = body.code ?? null;
  }
}

export interface RequestOptions {
  json?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/** One server-sent event as read from a stream: `event:` name (or `message`) and parsed `data:`. */
export interface StreamEvent {
  event: string;
  data: any;
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as { error?: ApiErrorBody };
    if (parsed.error?.message) return new ApiError(response.status, parsed.error);
  } catch {
    // Not JSON: fall through to a message built from the status.
  }
  return new ApiError(response.status, { message: `HTTP ${response.status}: ${text.slice(0, 200) || response.statusText}` });
}

/** Reads `event:`/`data:` blocks from a fetch body, coping with blocks split across chunks. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) {
        const text = data.join('\n');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // `[DONE]` and other plain strings stay strings.
        }
        yield { event, data: parsed };
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

export class ApiClient {
  readonly key: string;

  constructor(key: string) {
    this.key = key;
  }

  #url(path: string, query?: RequestOptions['query']): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') search.set(name, String(value));
    const qs = search.toString();
    return `${path}${qs ? `?${qs}` : ''}`;
  }

  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const response = await fetch(this.#url(path, options.query), {
      method,
      signal: options.signal,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options);
    return (await response.json()) as T;
  }

  get<T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { query, signal });
  }

  post<T>(path: string, json?: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('POST', path, { json: json ?? {}, signal });
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** POSTs and yields the server-sent events of the answer. */
  async *stream(path: string, json: unknown, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const response = await this.fetch('POST', path, { json, signal });
    if (!response.body) return;
    yield* readSse(response.body);
  }

  /** The bytes of a file (for a download link), fetched with the key rather than put in a URL. */
  async blob(path: string): Promise<Blob> {
    return (await this.fetch('GET', path)).blob();
  }

  /** Multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can). */
  upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', path);
      request.setRequestHeader('authorization', `Bearer ${this.key}`);
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      };
      request.onload = () => {
        let body: any;
        try {
          body = JSON.parse(request.responseText);
        } catch {
          body = undefined;
        }
        if (request.status >= 200 && request.status < 300) {
          onProgress(1);
          resolve(body as T);
        } else {
          reject(new ApiError(request.status, body?.error ?? { message: `HTTP ${request.status}` }));
        }
      };
      request.onerror = () => reject(new ApiError(0, { message: 'The upload failed: the server could not be reached.' }));
      request.send(form);
    });
  }
}
