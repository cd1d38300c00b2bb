/** A job-ending error of a source with a stable `code` shown on the failed job (e.g. `location_not_found`). */
export class SourceError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'SourceError';
    this.code = code;
  }
}
