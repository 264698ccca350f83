// `opkit completion bash|zsh|fish`: the script of src/completion.ts for the shell asked.
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { SHELLS, type Shell } from '../completion.js';
import { examples } from './options.js';

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
    .action(async (shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new CliError('OPKIT_ARGUMENT_INVALID', `completion ${shell}: give one of ${SHELLS.join(', ')}`);
      const { completionScript } = await import('../completion.js');
      process.stdout.write(completionScript(program, shell as Shell));
    });
}
