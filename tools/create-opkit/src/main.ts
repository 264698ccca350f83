// `create-opkit <directory> [options]`: what `npm create opkit` runs.
import { HELP, parseCommand } from './arguments.js';
import { createWorkspace, npmInstall, runInherited } from './create-workspace.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

try {
  const command = parseCommand(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(HELP);
  } else {
    const next = await createWorkspace(command.options, {
      install: npmInstall(runInherited),
      run: runInherited,
      log: say,
    });
    say(`\nDone. Next:\n${next.map((line) => `  ${line}`).join('\n')}`);
  }
} catch (error) {
  // Every error is one line: parseArgs' and the generators' messages, and ours, say what to change.
  process.stderr.write(`create-opkit: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
