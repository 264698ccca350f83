import { Command, CommanderError, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FORMAT_FLAGS } from './commands/options.js';
import { cliVersion, createProgram } from './program.js';

/** Every command of the tree with the words that run it (`[]` for opkit itself). */
function commands(command: Command, path: string[] = []): Array<{ command: Command; path: string[] }> {
  return [{ command, path }, ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()]))];
}

/** A program that throws instead of exiting and keeps what it would print. */
function quietProgram(): { program: Command; out: string[]; err: string[] } {
  const program = createProgram();
  const out: string[] = [];
  const err: string[] = [];
  for (const { command } of commands(program)) {
    command.exitOverride().configureOutput({
      writeOut: (s) => out.push(s),
      writeErr: (s) => err.push(s),
    });
  }
  return { program, out, err };
}

const outputOptions = (command: Command): Option[] =>
  command.options.filter((o) => o.long === '--output' || o.short === '-o');

describe('the conventions every opkit command keeps', () => {
  it('every command and subcommand has an Examples section in its --help', () => {
    const { program, out } = quietProgram();
    const missing: string[] = [];
    for (const { command, path } of commands(program)) {
      out.length = 0;
      command.outputHelp();
      if (!/\nExamples:\n {2}\$ opkit /.test(out.join(''))) missing.push(['opkit', ...path].join(' '));
    }
    expect(missing).toEqual([]);
    expect(commands(program).length).toBeGreaterThan(15);
  });

  it('every -o/--output refuses an unknown format in one line naming the accepted ones', async () => {
    const checked: string[] = [];
    for (const { command, path } of commands(createProgram())) {
      for (const option of outputOptions(command)) {
        const where = ['opkit', ...path, option.flags].join(' ');
        expect(option.flags, `${where}: output formats are ${OUTPUT_FORMAT_FLAGS}`).toBe(OUTPUT_FORMAT_FLAGS);
        // image build takes its former `-o <dir>` for one more release (with a warning), so no choices.
        if (path.join(' ') === 'image build') continue;
        const accepted = option.argChoices ?? [];
        expect(accepted.length, `${where}: the accepted formats are listed`).toBeGreaterThan(0);
        expect(accepted, `${where}: the default is an accepted format`).toContain(option.defaultValue);
        const { program, err } = quietProgram();
        const refused = await program.parseAsync(['node', 'opkit', ...path, '-o', 'no-such-format']).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused, where).toBeInstanceOf(CommanderError);
        expect((refused as CommanderError).exitCode, where).toBe(1);
        expect(err.join(''), where).toBe(
          `error: option '${OUTPUT_FORMAT_FLAGS}' argument 'no-such-format' is invalid. Allowed choices are ${accepted.join(', ')}.\n`,
        );
        checked.push(path.join(' '));
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'bundle validate',
        'bundle image',
        'catalog validate',
        'catalog render',
        'catalog build',
        'catalog image',
        'deploy',
        'graph',
      ]),
    );
  });

  it('every -o that prints json prints yaml too, and no command writes a directory through -o', () => {
    for (const { command, path } of commands(createProgram())) {
      for (const option of outputOptions(command)) {
        if (option.argChoices?.includes('json')) expect(option.argChoices, path.join(' ')).toContain('yaml');
      }
      for (const option of command.options) {
        if (/<(dir|file|path)>$/.test(option.flags))
          expect(option.long, `${path.join(' ')} ${option.flags}`).not.toBe('--output');
      }
    }
  });

  it('the commands that build or apply something print text by default, or one json or yaml result', () => {
    const program = createProgram();
    for (const path of [
      'bundle build-all',
      'bundle generate',
      'bundle image',
      'bundle push',
      'catalog build',
      'catalog image',
      'deploy',
      'generate bundle',
      'image pull',
      'image push',
    ]) {
      const command = commands(program).find((c) => c.path.join(' ') === path)?.command;
      const [option] = command ? outputOptions(command) : [];
      expect(option?.argChoices, path).toEqual(['text', 'json', 'yaml']);
      expect(option?.defaultValue, path).toBe('text');
    }
  });

  it('--version and -v print the package version', async () => {
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(cliVersion()).toBe(version);
    for (const flag of ['--version', '-v']) {
      const { program, out } = quietProgram();
      await expect(program.parseAsync(['node', 'opkit', flag])).rejects.toMatchObject({
        code: 'commander.version',
        exitCode: 0,
      });
      expect(out.join('')).toBe(`${version}\n`);
    }
  });
});

describe('the commander internals the CLI contract relies on', () => {
  it('commander still calls missingMandatoryOptionValue once per command with a missing required option', async () => {
    expect(typeof (Command.prototype as unknown as Record<string, unknown>).missingMandatoryOptionValue).toBe(
      'function',
    );
    const { program, err } = quietProgram();
    await expect(program.parseAsync(['catalog', 'build'], { from: 'user' })).rejects.toBeInstanceOf(
      CommanderError,
    );
    // Every missing option in one error: the override ran, not commander's own first-only message.
    expect(err.join('')).toMatch(/^error: required options '.+', '.+' not specified/);
  });
});
