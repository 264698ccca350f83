// The parts of the CLI contract commander does not keep by itself, applied to the whole command tree once it
// is registered: every missing required option named in one error (commander stops at the first), and each
// required option marked "(required)" in `--help`.
import { type Command, Help, type Option } from 'commander';

/** Every command of the tree, the program first. */
export function commandTree(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandTree)];
}

/** The required options of `command` that have no value after parsing. */
function missingRequiredOptions(command: Command): Option[] {
  return command.options.filter(
    (option) => option.mandatory && command.getOptionValue(option.attributeName()) === undefined,
  );
}

/** The one usage error for every required option a command line left out. */
export function missingOptionsMessage(missing: readonly Option[]): string {
  const flags = missing.map((option) => `'${option.flags}'`);
  return missing.length === 1
    ? `error: required option ${flags[0]} not specified`
    : `error: required options ${flags.join(', ')} not specified`;
}

/** Commander's hook for a required option without a value. */
interface MandatoryCheck {
  missingMandatoryOptionValue(option: Option): void;
}

/** Applies the contract to `program` and every command below it. */
export function applyCliContract(program: Command): void {
  for (const command of commandTree(program)) {
    // Commander calls this for the first missing option and stops there: report them all instead. Commander
    // has no public hook that runs before that check, and the method is left out of its typings, hence the
    // view of the command that names it. Checked for commander >=14.0.0 <15 (package.json ^14.0.0);
    // program.spec.ts fails if a commander release drops or stops calling it.
    (command as unknown as MandatoryCheck).missingMandatoryOptionValue = () => {
      command.error(missingOptionsMessage(missingRequiredOptions(command)), {
        code: 'commander.missingMandatoryOptionValue',
      });
    };
    command.configureHelp({
      optionDescription(option: Option): string {
        const description = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${description} (required)` : description;
      },
    });
  }
}
