// Setup of the http-postgres project: every test file stops the PostgreSQL servers it started.
import { closeTestPostgres } from '@fathom/core/test';
import { afterAll } from 'vitest';

afterAll(closeTestPostgres);
