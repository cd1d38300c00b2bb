// STUB (owner: vector/embeddings helper): `fathom models`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom models: not implemented yet');
}
