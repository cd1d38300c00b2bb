import { AuthenticationError, type Account, type Fathom, type KeyGrant } from '@fathom/core';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for routes authenticated with an account key. */
    account?: Account;
    /** The key of an account-authenticated request: its id and limits. */
    apiKey?: KeyGrant;
  }
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : null;
}

/** Resolves the account of the request's bearer key, or throws 401. */
export async function authenticateAccount(fathom: Fathom, request: FastifyRequest): Promise<Account> {
  const key = bearer(request);
  if (!key) {
    throw new AuthenticationError("You didn't provide an API key. Send it in the Authorization header: 'Authorization: Bearer <API_KEY>'.");
  }
  const found = await fathom.accounts.authenticateKey(key);
  if (!found) throw new AuthenticationError('Incorrect API key provided.');
  request.apiKey = found.key;
  return found.account;
}

/** Checks the admin bearer key (constant-time). The admin API exists only when FATHOM_ADMIN_KEY is set. */
export function authenticateAdmin(fathom: Fathom, request: FastifyRequest): void {
  const expected = fathom.config.adminKey;
  const key = bearer(request);
  if (!expected || !key) throw new AuthenticationError('Incorrect or missing admin key.');
  const a = Buffer.from(key);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AuthenticationError('Incorrect or missing admin key.');
}
