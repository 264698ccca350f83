// The shell completion scripts of `opkit completion`, made from the command tree itself (commander has no
// generator), so every command and option the CLI has is completed and nothing it lacks.
import type { Command } from 'commander';

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
  // Commander's public view of what --help lists, less the implicit `help` command it adds.
  const visible = command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => command.commands.includes(c));
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
  if (shell === 'fish') return fishScript(tree);
  const cases = tree
    .map((node) => `    '${key(node.path)}') found='${[...node.subcommands, ...node.options].join(' ')}' ;;`)
    .join('\n');
  const body = `_opkit_words() {
  # The command path typed so far (words before the current one that are not options) picks the candidates.
  # Not \`path\` nor \`words\`: zsh ties \`path\` to $PATH and \`words\` is its completion special.
  local typed="" word
  for word in "$@"; do
    if _opkit_known "\${typed:+$typed }$word"; then typed="\${typed:+$typed }$word"; fi
  done
  _opkit_candidates "$typed"
}
_opkit_known() {
  case "$1" in
${tree.map((node) => `    '${key(node.path)}') return 0 ;;`).join('\n')}
  esac
  return 1
}
_opkit_candidates() {
  local found=""
  case "$1" in
${cases}
  esac
  printf '%s' "$found"
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

/**
 * The fish script. A completion applies where the whole command path typed so far is its command's (as the
 * bash and zsh scripts pick it), so `generate bundle` is not taken for `bundle`. Files are completed only for
 * commands without subcommands, whose arguments are paths.
 */
function fishScript(tree: readonly CompletionNode[]): string {
  const key = (path: readonly string[]) => path.join(' ');
  const lines = [
    '# opkit completion for fish: opkit completion fish > ~/.config/fish/completions/opkit.fish',
    `set -g __opkit_paths ${tree.map((node) => `'${key(node.path)}'`).join(' ')}`,
    'function __opkit_path_is',
    '    set -l typed ""',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    '    for word in $words',
    '        set -l next (string trim -- "$typed $word")',
    '        if contains -- $next $__opkit_paths',
    '            set typed $next',
    '        end',
    '    end',
    '    test "$typed" = "$argv[1]"',
    'end',
  ];
  for (const node of tree) {
    const condition = `__opkit_path_is '${key(node.path)}'`;
    // A command with subcommands takes no path: only its subcommands (and options) are offered.
    const files = node.subcommands.length > 0 ? ' -f' : '';
    for (const sub of node.subcommands) {
      lines.push(
        `complete -c opkit${files} -n "${condition}" -a '${sub}' -d '${node.descriptions.get(sub) ?? ''}'`,
      );
    }
    for (const flag of node.options) {
      if (!flag.startsWith('--')) continue;
      lines.push(
        `complete -c opkit${files} -n "${condition}" -l '${flag.slice(2)}' -d '${node.descriptions.get(flag) ?? ''}'`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
