// STUB (owner: documents / vector helpers): `fathom models`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom models: not implemented yet');
}
