import { Command, CommanderError } from 'commander';

/**
 * What `broadsheet --help` or a usage error must not load: the context and the packages behind it. Every
 * command paid for all of them at start (about 0.5 s of CPU, 870 modules), a `--help` as much as an import;
 * on a loaded machine that was seconds per command.
 */
const HEAVY = [
  '@elastic/elasticsearch',
  'pg-boss',
  'pg',
  'zod',
  'express',
  'prom-client',
  'jsonwebtoken',
  'node-pg-migrate',
  '../../src/context',
  '../../src/config',
];

/** The CLI's commands on a program as src/cli/main.ts builds it, given what it printed and what it loaded. */
function cliLoading(args: string[]): Promise<{ loaded: string[]; output: string; error: unknown }> {
  return new Promise((resolve) => {
    jest.isolateModules(() => {
      const loaded: string[] = [];
      for (const name of HEAVY) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      const program = new Command('broadsheet').exitOverride();
      let output = '';
      const collect = (text: string) => {
        output += text;
      };
      program.configureOutput({ writeOut: collect, writeErr: collect });
      const register = (path: string, name: string) =>
        (jest.requireActual<Record<string, (program: Command) => void>>(path)[name] as (p: Command) => void)(
          program,
        );
      register('../../src/cli/commands/migrate', 'migrateCommand');
      register('../../src/cli/commands/projects', 'projectCommands');
      register('../../src/cli/commands/clients', 'clientCommands');
      register('../../src/cli/commands/import', 'importCommand');
      register('../../src/cli/commands/export', 'exportCommand');
      register('../../src/cli/commands/demo', 'demoCommand');
      register('../../src/cli/commands/index', 'indexCommands');
      register('../../src/cli/commands/menus', 'menuCommands');
      register('../../src/cli/commands/lists', 'listCommands');
      register('../../src/cli/commands/media', 'mediaCommands');
      program.commands.forEach((command) =>
        command.exitOverride().configureOutput(program.configureOutput()),
      );
      program.parseAsync(['node', 'broadsheet', ...args]).then(
        () => resolve({ loaded, output, error: undefined }),
        (error: unknown) => resolve({ loaded, output, error }),
      );
    });
  });
}

describe('the CLI at start', () => {
  it('when asked for --help, then it prints the commands without loading the context or a heavy package', async () => {
    const { loaded, output, error } = await cliLoading(['--help']);
    expect(error).toBeInstanceOf(CommanderError);
    expect(output).toContain('index');
    expect(output).toContain('import');
    expect(loaded).toEqual([]);
  });

  it('when a command gets a bad option, then it refuses it before loading anything heavy', async () => {
    const demo = await cliLoading(['demo', '--documents', '5']);
    expect((demo.error as Error).message).toBe('--documents must be a whole number, at least 30');
    expect(demo.loaded).toEqual([]);
    const rebuild = await cliLoading(['index', 'rebuild', '--batch-size', '0']);
    expect(rebuild.output).toContain("option '-b, --batch-size <n>' argument '0' is invalid");
    expect(rebuild.loaded).toEqual([]);
    const backfill = await cliLoading(['media', 'backfill-video', '--batch-size', '1001']);
    expect(backfill.output).toContain("option '-b, --batch-size <n>' argument '1001' is invalid");
    expect(backfill.loaded).toEqual([]);
  });
});
