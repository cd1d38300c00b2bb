import { describe, expect, it } from 'vitest';
import { NotFoundError, RateLimitError } from '../errors';
import type { Logger } from '../internal/logger';
import { INTERNAL_FAILURE, responseError } from './response-error';

describe('responseError', () => {
  const logged: string[] = [];
  const log: Logger = { info() {}, warn() {}, error: (message) => void logged.push(message) };

  it('never shows a database error: the response says server_error in general terms and the log has the cause', () => {
    const error = Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(responseError(error, log, 'resp_1')).toEqual({ code: 'server_error', message: INTERNAL_FAILURE });
    expect(logged.at(-1)).toContain('FOREIGN KEY constraint failed');
    expect(responseError('a thrown string', log, 'resp_2')).toEqual({ code: 'server_error', message: INTERNAL_FAILURE });
  });

  it('keeps what Fathom says on purpose (a missing file, an upstream rate limit)', () => {
    expect(responseError(new NotFoundError('file', 'file-1', 'input[0].content[0].file_id'), log, 'resp_3')).toEqual({
      code: 'server_error',
      message: "No file found with id 'file-1'.",
    });
    expect(responseError(new RateLimitError('Slow down.'), log, 'resp_4')).toMatchObject({ code: 'rate_limit_exceeded' });
  });
});
