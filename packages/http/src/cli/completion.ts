import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** Words typed after `fathom` to reach this command ('' for the program). */
  path: string;
  command: Command;
}

/** Every command of the tree with its path. */
function walk(command: Command, path = ''): Node[] {
  return [{ path, command }, ...command.commands.flatMap((sub) => walk(sub, `${path} ${sub.name()}`.trim()))];
}

/** What can follow a command: its subcommands, its long options (and the program's, which apply everywhere). */
function candidates(node: Node, program: Command): string[] {
  const options = [...node.command.options, ...(node.command === program ? [] : program.options)]
    .map((option) => option.long)
    .filter((long): long is string => !!long);
  return [...node.command.commands.map((sub) => sub.name()), ...options, '--help'];
}

function bash(program: Command): string {
  const nodes = walk(program);
  const steps = nodes
    .filter((node) => node.path)
    .map((node) => `"${node.path}"`)
    .join('|');
  const cases = nodes.map((node) => `    "${node.path}") words="${candidates(node, program).join(' ')}" ;;`).join('\n');
  return `# fathom completion for bash: eval "$(fathom completion bash)" (e.g. in ~/.bashrc)
_fathom_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == -* ]] && continue
    next="\${path:+$path }\${COMP_WORDS[i]}"
    case "$next" in
      ${steps}) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _fathom_complete fathom
`;
}

function fish(program: Command): string {
  const lines = ['# fathom completion for fish: fathom completion fish > ~/.config/fish/completions/fathom.fish', 'complete -c fathom -f'];
  for (const node of walk(program)) {
    const words = node.path ? node.path.split(' ') : [];
    const here = words.length === 0 ? '__fish_use_subcommand' : words.map((word) => `__fish_seen_subcommand_from ${word}`).join('; and ');
    const children = node.command.commands.map((sub) => sub.name());
    const notDeeper = children.length ? `; and not __fish_seen_subcommand_from ${children.join(' ')}` : '';
    for (const sub of node.command.commands)
      lines.push(`complete -c fathom -n '${here}${notDeeper}' -a ${sub.name()} -d ${JSON.stringify(sub.summary() || sub.description())}`);
    for (const option of node.command.options)
      if (option.long) lines.push(`complete -c fathom -n '${here}' -l ${option.long.slice(2)} -d ${JSON.stringify(option.description)}`);
  }
  for (const option of program.options)
    if (option.long) lines.push(`complete -c fathom -l ${option.long.slice(2)} -d ${JSON.stringify(option.description)}`);
  return `${lines.join('\n')}\n`;
}

/** `fathom completion <shell>`: a script generated from the command tree, so it never falls behind the commands. */
export function completionScript(shell: Shell, program: Command): string {
  if (shell === 'fish') return fish(program);
  if (shell === 'zsh')
    return `# fathom completion for zsh: eval "$(fathom completion zsh)" (e.g. in ~/.zshrc)\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${bash(program)}`;
  return bash(program);
}
