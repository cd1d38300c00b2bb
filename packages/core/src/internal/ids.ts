import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string of `length` characters (about 5.95 bits each). */
export function randomToken(length = 24): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const byte = bytes[i]!;
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  while (out.length < length) out += ALPHABET[randomBytes(1)[0]! % 62];
  return out;
}

/** Id prefixes, as OpenAI's and Fathom's objects carry them: `file-`, `vs_`, `vsfb_`, `asst_`, `thread_`, `msg_`, `run_`, `step_`, `job_`, `agent_`, `acct_`, `key_`. */
export type IdPrefix =
  | 'file-'
  | 'vs_'
  | 'vsfb_'
  | 'asst_'
  | 'thread_'
  | 'msg_'
  | 'run_'
  | 'step_'
  | 'job_'
  | 'agent_'
  | 'acct_'
  | 'key_'
  | 'call_'
  | 'chatcmpl-'
  | 'resp_'
  | 'agentrun_'
  | 'fs_'
  | 'fc_'
  | 'fco_'
  | 'conv_'
  | 'ing_'
  | 'mcpl_'
  | 'mcp_'
  | 'mcpr_'
  | 'mcpa_'
  | 'batch_'
  | 'mc_'
  | 'req_';

export function newId(prefix: IdPrefix): string {
  return `${prefix}${randomToken(24)}`;
}

/** Seconds since the epoch, as OpenAI objects carry them. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
