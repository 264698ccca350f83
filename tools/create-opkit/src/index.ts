// create-opkit: `npm create opkit <directory>` makes a new opkit workspace from the @opkit/nx plugin's preset.
export { type CreateOptions, HELP, type ParsedCommand, parseCommand } from './arguments.js';
export {
  CreateError,
  type CreateSteps,
  createWorkspace,
  npmInstall,
  packageNameOf,
  presetArguments,
  type RunCommand,
  runInherited,
} from './create-workspace.js';
