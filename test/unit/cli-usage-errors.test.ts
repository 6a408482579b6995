import { Command, CommanderError, Option } from 'commander';
import { CommandFailed, exitCodeOf, oneLineUsageErrors } from '../../src/cli/run';

/** A small command tree shaped like the CLI's, with its usage errors as oneLineUsageErrors words them. */
function usageErrorOf(args: string[]): { output: string; error: unknown } {
  let output = '';
  const program = new Command('broadsheet')
    .exitOverride()
    .configureOutput({ writeErr: (text) => (output += text), writeOut: (text) => (output += text) });
  program
    .command('import <file>')
    .requiredOption('-p, --project <handle|id>', 'project')
    .option('--batch-size <n>', 'documents per transaction')
    .action(() => undefined);
  program
    .command('index')
    .command('verify')
    .option('--repair', 'repair')
    .action(() => undefined);
  program
    .command('export')
    .addOption(new Option('--token <token>', 'an API token').env('BROADSHEET_TOKEN').makeOptionMandatory())
    .action(() => undefined);
  oneLineUsageErrors(program);
  let error: unknown;
  try {
    program.parse(['node', 'broadsheet', ...args]);
  } catch (caught) {
    error = caught;
  }
  return { output, error };
}

describe('the CLI usage errors', () => {
  it.each([
    [
      ['import', 'a.ndjson', '-p', 'x', '--bogus'],
      "broadsheet import: unknown option '--bogus' (see: broadsheet import --help)\n",
    ],
    [
      ['import', 'a.ndjson'],
      "broadsheet import: required option '-p, --project <handle|id>' not specified (see: broadsheet import --help)\n",
    ],
    [
      ['import', 'a.ndjson', '-p'],
      "broadsheet import: option '-p, --project <handle|id>' argument missing (see: broadsheet import --help)\n",
    ],
    // Commander puts its suggestion on a line of its own.
    [
      ['index', 'verify', '--repiar'],
      "broadsheet index verify: unknown option '--repiar' (Did you mean --repair?) (see: broadsheet index verify --help)\n",
    ],
    // The variable that can give it is named, as the help named it.
    [
      ['export'],
      "broadsheet export: required option '--token <token>' (or BROADSHEET_TOKEN) not specified (see: broadsheet export --help)\n",
    ],
    [['imprt'], "broadsheet: unknown command 'imprt' (Did you mean import?) (see: broadsheet --help)\n"],
  ])('when given %j, then one line names the command, the problem and its --help', (args, line) => {
    const { output, error } = usageErrorOf(args);
    expect(error).toBeInstanceOf(CommanderError);
    expect(output).toBe(line);
  });

  it('when a command asks for an exit code of its own, then the CLI exits with it; any other error exits 1', () => {
    expect(exitCodeOf(new CommandFailed('could not verify', 2))).toBe(2);
    expect(exitCodeOf(new Error('anything else'))).toBe(1);
    expect(exitCodeOf('a string')).toBe(1);
  });
});
