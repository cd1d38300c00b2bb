import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('the repository', () => {
  it('holds no merge-conflict markers in any tracked text file (also where a formatter reflowed them)', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|tsx|mjs|js|json|md|css|html|yml|yaml)$/.test(file) && file !== 'package-lock.json');
    const marked = files.filter((file) => /^(<{7}|>{7}|> > > > > > >) |^={7}$/m.test(readFileSync(join(root, file), 'utf8')));
    expect(marked).toEqual([]);
  });
});
