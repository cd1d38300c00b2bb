// STUB (owner: documents / vector helpers): `fathom ingest`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom ingest: not implemented yet');
}
