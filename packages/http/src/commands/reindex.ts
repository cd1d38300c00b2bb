// STUB (owner: vector/embeddings helper): `fathom reindex`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom reindex: not implemented yet');
}
