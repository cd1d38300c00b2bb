/**
 * The signed-in key lives in sessionStorage only: it is gone when the tab closes, it is never put in a
 * URL, and it is sent to the server only in the Authorization header.
 */
const STORAGE_KEY = 'fathom.console.session';

export interface Session {
  key: string;
  /** `account`: an account's API key; `admin`: the installation's FATHOM_ADMIN_KEY. */
  kind: 'account' | 'admin';
  /** The account's name (account sessions). */
  name?: string;
}

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}
