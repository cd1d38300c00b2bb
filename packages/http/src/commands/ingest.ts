// STUB (owner: documents helper): `fathom ingest`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom ingest: not implemented yet');
}
