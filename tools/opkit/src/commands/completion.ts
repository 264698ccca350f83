// `opkit completion bash|zsh|fish`: a completion script made from the command tree itself (commander has no
// generator), so every command and option the CLI has is completed and nothing it lacks.
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { examples } from './options.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command of the tree: the words that run it, its subcommands' names and its options' flags. */
interface CompletionNode {
  readonly path: readonly string[];
  readonly subcommands: readonly string[];
  readonly options: readonly string[];
  readonly descriptions: ReadonlyMap<string, string>;
}

function nodes(command: Command, path: string[] = []): CompletionNode[] {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const descriptions = new Map<string, string>();
  for (const sub of visible) descriptions.set(sub.name(), firstSentence(sub.description()));
  const options = command.options
    .filter((o) => !o.hidden)
    .flatMap((o) => [o.short, o.long].filter((f): f is string => f !== undefined));
  for (const o of command.options)
    if (o.long !== undefined) descriptions.set(o.long, firstSentence(o.description));
  return [
    {
      path,
      subcommands: visible.flatMap((sub) => [sub.name(), ...sub.aliases()]),
      options: [...options, '--help'],
      descriptions,
    },
    ...visible.flatMap((sub) => [
      ...nodes(sub, [...path, sub.name()]),
      ...sub.aliases().flatMap((alias) => nodes(sub, [...path, alias])),
    ]),
  ];
}

const firstSentence = (text: string): string => (text.split(/(?<=\.)\s|\n/)[0] ?? '').replace(/['"`\\]/g, '');

/** The completion script of `program` for `shell`. */
export function completionScript(program: Command, shell: Shell): string {
  const tree = nodes(program);
  const key = (path: readonly string[]) => path.join(' ');
  if (shell === 'fish') {
    const lines = [
      '# opkit completion for fish: opkit completion fish > ~/.config/fish/completions/opkit.fish',
      'complete -c opkit -f',
    ];
    for (const node of tree) {
      const condition =
        node.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${node.path.at(-1)}`;
      for (const sub of node.subcommands) {
        lines.push(
          `complete -c opkit -n '${condition}' -a '${sub}' -d '${node.descriptions.get(sub) ?? ''}'`,
        );
      }
      if (node.path.length === 0) continue;
      for (const flag of node.options) {
        if (!flag.startsWith('--')) continue;
        lines.push(
          `complete -c opkit -n '${condition}' -l '${flag.slice(2)}' -d '${node.descriptions.get(flag) ?? ''}'`,
        );
      }
    }
    return `${lines.join('\n')}\n`;
  }
  const cases = tree
    .map((node) => `    '${key(node.path)}') words='${[...node.subcommands, ...node.options].join(' ')}' ;;`)
    .join('\n');
  const body = `_opkit_words() {
  # The command path typed so far (words before the current one that are not options) picks the candidates.
  local path="" word
  for word in "$@"; do
    if _opkit_known "\${path:+$path }$word"; then path="\${path:+$path }$word"; fi
  done
  _opkit_candidates "$path"
}
_opkit_known() {
  case "$1" in
${tree.map((node) => `    '${key(node.path)}') return 0 ;;`).join('\n')}
  esac
  return 1
}
_opkit_candidates() {
  local words=""
  case "$1" in
${cases}
  esac
  printf '%s' "$words"
}`;
  if (shell === 'bash') {
    return `# opkit completion for bash: source <(opkit completion bash)
${body}
_opkit() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  COMPREPLY=($(compgen -W "$(_opkit_words "\${COMP_WORDS[@]:1:COMP_CWORD-1}")" -- "$cur"))
  [ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -F _opkit opkit
`;
  }
  return `#compdef opkit
# opkit completion for zsh: source <(opkit completion zsh)
${body}
_opkit() {
  local -a candidates
  candidates=(\${=$(_opkit_words "\${(@)words[2,CURRENT-1]}")})
  if (( \${#candidates} )); then compadd -a candidates; else _files; fi
}
if [ "$funcstack[1]" = "_opkit" ]; then _opkit "$@"; else compdef _opkit opkit; fi
`;
}

/** `opkit completion <shell>`. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion <shell>')
    .description(`Print a shell completion script for opkit (${SHELLS.join(', ')}).`)
    .addHelpText(
      'after',
      examples(
        ['opkit completion bash > opkit-completion.bash', 'opkit completion zsh', 'opkit completion fish'],
        `Load it in the shell's start-up file: bash: source <(opkit completion bash); zsh: source <(opkit
completion zsh) after compinit; fish: opkit completion fish > ~/.config/fish/completions/opkit.fish`,
      ),
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new CliError('OPKIT_ARGUMENT_INVALID', `completion ${shell}: give one of ${SHELLS.join(', ')}`);
      process.stdout.write(completionScript(program, shell as Shell));
    });
}
