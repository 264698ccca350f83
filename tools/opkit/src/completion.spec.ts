import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { completionScript } from './completion.js';
import { createProgram } from './program.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-completion-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('completion scripts', () => {
  it('bash: the script parses, and completes by the whole command path', () => {
    const script = join(scratch, 'opkit.bash');
    writeFileSync(script, completionScript(createProgram(), 'bash'));
    execFileSync('bash', ['-n', script]);
    const complete = (...words: string[]) =>
      execFileSync('bash', [
        '-c',
        `source ${script}; COMP_WORDS=(opkit ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _opkit; echo "\${COMPREPLY[*]}"`,
      ])
        .toString()
        .trim()
        .split(' ');
    // `generate bundle` is its own command: bundle's subcommands are not offered after it.
    expect(complete('generate', 'bundle', '')).not.toContain('validate');
    expect(complete('bundle', '')).toContain('validate');
  });

  it('zsh: no local named path (tied to $PATH) or words (the completion special)', () => {
    const script = completionScript(createProgram(), 'zsh');
    expect(script).not.toMatch(/local (-a )?(path|words)\b/);
    expect(script).not.toMatch(/\bpath=/);
    expect(script).toContain('words[2,CURRENT-1]');
    expect(() =>
      execFileSync('bash', ['-n'], { input: script.replace(/^if \[ "\$funcstack.*$/m, '') }),
    ).not.toThrow();
  });

  it('fish: conditions are the whole command path, and files stay on for commands that take paths', () => {
    const script = completionScript(createProgram(), 'fish');
    expect(script).not.toMatch(/^complete -c opkit -f$/m);
    expect(script).not.toContain('__fish_seen_subcommand_from');
    // `image push` and `bundle push` differ in their options; each is offered under its own path only.
    expect(script).toContain(`complete -c opkit -n "__opkit_path_is 'image push'" -l 'image'`);
    expect(script).not.toContain(`complete -c opkit -n "__opkit_path_is 'bundle push'" -l 'image'`);
    expect(script).toContain(`complete -c opkit -f -n "__opkit_path_is 'generate'" -a 'bundle'`);
    expect(script).toContain(`complete -c opkit -f -n "__opkit_path_is 'bundle'" -a 'validate'`);
    expect(script).not.toContain(`-n "__opkit_path_is 'generate bundle'" -a 'validate'`);
    // A leaf such as `bundle validate [bundle]` completes paths: no -f on its lines.
    expect(script).toMatch(/^complete -c opkit -n "__opkit_path_is 'bundle validate'" -l /m);
  });

  it('hidden commands and options are left out', () => {
    const program = new Command('opkit');
    program.command('shown').option('--kept');
    program.command('secret', { hidden: true });
    program.commands[0]?.addOption(new Option('--gone').hideHelp());
    const script = completionScript(program, 'bash');
    expect(script).toContain("'shown'");
    expect(script).not.toContain('secret');
    expect(script).not.toContain('--gone');
  });
});
