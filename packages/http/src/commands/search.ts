// STUB (owner: documents helper): `fathom search`.
export async function run(_args: string[]): Promise<void> {
  throw new Error('fathom search: not implemented yet');
}
