import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program';

const doc = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

/** Every command that runs something (no subcommands), with its words after `fathom`. */
function leaves(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  if (command.commands.length === 0) return [{ path: path.join(' '), command }];
  return command.commands.filter((sub) => sub.name() !== 'help').flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

/** The part of docs/cli.md under `### \`fathom <path>\``, up to the next heading. */
function section(path: string): string | undefined {
  const start = doc.indexOf(`### \`fathom ${path}\`\n`);
  if (start < 0) return undefined;
  const end = doc.indexOf('\n#', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/cli.md', () => {
  const program = buildProgram('0.0.0');
  const commands = leaves(program);

  it('documents every command with its arguments and options, as --help prints them', () => {
    expect(commands.length).toBeGreaterThan(15);
    for (const { path, command } of commands) {
      // What `fathom <path> --help` prints.
      const help = command.helpInformation();
      expect(help, path).toContain(`Usage: fathom ${path}`);
      const text = section(path);
      expect(text, `docs/cli.md has no section for 'fathom ${path}'`).toBeDefined();
      for (const argument of command.registeredArguments)
        expect(text, `'fathom ${path}': argument ${argument.name()}`).toMatch(
          new RegExp(`[<\\[]${argument.name()}(\\.\\.\\.)?[>\\]]|\\b${argument.name()}\\b`),
        );
      for (const option of command.options) {
        expect(help, path).toContain(option.long!);
        expect(text, `'fathom ${path}': option ${option.long}`).toContain(option.long!);
      }
    }
  });

  it('documents the global options the program help lists, and the exit codes', () => {
    const help = program.helpInformation();
    for (const option of program.options) {
      expect(help).toContain(option.long!);
      expect(doc, option.long).toContain(`\`${option.flags}\``);
    }
    expect(doc).toMatch(/\| 2 {4}\| usage/);
  });
});
