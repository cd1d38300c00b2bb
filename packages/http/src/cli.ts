#!/usr/bin/env node
/** The `fathom` CLI (docs/cli.md): the command tree is in cli/program.ts, each command group in cli/. */
import { readFileSync } from 'node:fs';
import { type Command, CommanderError } from 'commander';
import { UsageError } from './cli/context';
import { buildProgram } from './cli/program';

// dist/cli.js and src/cli.ts both sit one folder below the package's package.json.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Exit codes (docs/cli.md): 0 ok, 1 failure, 2 usage error. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Bad input: a UsageError, or a 400 (an option the API's schema refuses, named by `param`). */
function isUsageError(error: unknown): boolean {
  return error instanceof UsageError || (error instanceof Error && (error as { status?: unknown }).status === 400);
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram(version);
  let current: Command = program;
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the help, the version or the error with the usage already; help asked for and
      // the version come with exit code 0, everything else (help shown for a mistake included) is usage.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const param = (error as { param?: unknown }).param;
    const message = `${error instanceof Error ? error.message : String(error)}${typeof param === 'string' ? ` (param: ${param})` : ''}`;
    if (isUsageError(error)) {
      console.error(`error: ${message}\n`);
      console.error(current.helpInformation());
      process.exitCode = EXIT.usage;
    } else {
      console.error(`error: ${message}`);
      process.exitCode = EXIT.failure;
    }
  }
}

await main(process.argv.slice(2));
