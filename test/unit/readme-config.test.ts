import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { clientCommands } from '../../src/cli/commands/clients';
import { demoCommand } from '../../src/cli/commands/demo';
import { exportCommand } from '../../src/cli/commands/export';
import { importCommand } from '../../src/cli/commands/import';
import { indexCommands } from '../../src/cli/commands/index';
import { listCommands } from '../../src/cli/commands/lists';
import { mediaCommands } from '../../src/cli/commands/media';
import { menuCommands } from '../../src/cli/commands/menus';
import { migrateCommand } from '../../src/cli/commands/migrate';
import { projectCommands } from '../../src/cli/commands/projects';
import express from 'express';
import { EnvSchema } from '../../src/config';
import { ALL_VERSION_LABELS, ApiVersion, type VersionLabel } from '../../src/domain/api-versions';
import { SCOPES } from '../../src/domain/scopes';
import { listRoutes, routeExistsIn } from '../../src/http/route-table';
import { registerRoutes } from '../../src/http/routes';
import type { RouteDeps } from '../../src/http/routes/deps';

/**
 * The README is what operators configure and call the API from: these keep its configuration table, its endpoint
 * tables' scopes and docker-compose.yml in step with what the code reads and checks.
 */
const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The section of the README under `## <title>`, up to the next `## `. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section ${title}`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The cells of each row of the Markdown tables of a text (header and separator rows left out). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    )
    .slice(1);
}

/**
 * What the schema gives a variable that is not set: its default, or undefined for an optional one. The default
 * may sit inside a pipe: a transform's input (`.default('none').transform(...)`) or a preprocess's output (blank
 * read as unset, then `.default(200)`).
 */
function defaultOf(name: string): string | undefined {
  type Definition = { _zod: { def: Record<string, unknown> } };
  const find = (schema: Definition): string | undefined => {
    const def = schema._zod.def;
    if (def.type === 'default') return String(def.defaultValue);
    if (def.type !== 'pipe') return undefined;
    return find(def.in as Definition) ?? find(def.out as Definition);
  };
  return find((EnvSchema.shape as unknown as Record<string, Definition>)[name]!);
}

/** README's Configuration table by variable: `A` / `B` rows give each name its part of the default cell. */
function configurationTable(): Map<string, string> {
  const table = new Map<string, string>();
  for (const [names = '', defaults = ''] of tableRows(section('Configuration'))) {
    const each = names.split(' / ');
    const parts = defaults.split(' / ');
    each.forEach((name, i) =>
      table.set(name.replaceAll('`', ''), (each.length === parts.length ? parts[i] : defaults) ?? ''),
    );
  }
  return table;
}

describe('README: the configuration table', () => {
  const documented = configurationTable();
  const read = Object.keys(EnvSchema.shape);

  it('when src/config.ts reads a variable, then the table has a row for it, and no row names one it does not read', () => {
    expect(read.filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented.keys()].filter((name) => !read.includes(name))).toEqual([]);
  });

  it('when a variable has a default, then the table gives that default first; an optional one says — (none)', () => {
    const wrong = read.flatMap((name) => {
      const cell = documented.get(name) ?? '';
      const expected = defaultOf(name);
      // The one optional variable whose absence is a computed place, not "none": the table says which.
      if (expected === undefined && name === 'MEDIA_STORAGE_DIR') return [];
      const ok = expected === undefined ? cell.startsWith('—') : cell.startsWith(`\`${expected}\``);
      return ok ? [] : [`${name}: README says ${cell}, the code ${expected ?? 'none (optional)'}`];
    });
    expect(wrong).toEqual([]);
  });
});

describe('README: the endpoint tables', () => {
  it('when a table names a scope, then it is a scope a client can be given', () => {
    const named = [
      ...section('Endpoints')
        .split('\n### ')[0]!
        .matchAll(/^\| [^|]+ \| ([^|]+) \|/gm),
    ]
      .concat([
        ...section('Integrations: enrichment and the planning tool').matchAll(/^\| [^|]+ \| ([^|]+) \|/gm),
      ])
      .flatMap((match) =>
        (match[1] ?? '').split(/ \/ | \+ /).map((scope) => scope.replaceAll('`', '').trim()),
      )
      .filter((scope) => !['Scope', 'none', 'Basic credentials'].includes(scope));
    expect(named.length).toBeGreaterThan(20);
    expect([...new Set(named)].filter((scope) => !(SCOPES as readonly string[]).includes(scope))).toEqual([]);
  });
});

describe('README: the endpoint tables', () => {
  /** `GET documents/{}/latestPublication`: a route as the tables name it, its parameters' names left out. */
  const shape = (method: string, path: string) =>
    `${method} ${path.replace(/^\//, '').replace(/[:*]\w+|\{[^}]*\}/g, '{}')}`;

  /**
   * The operations the first cells of the README's endpoint tables name: `GET publicationEvents[/{channelHandle}]`
   * is both paths, `PUT …/publication/{documentId}` continues the cell's previous path, a query (`?ids=`) or
   * `(and HEAD)` is no part of the path.
   */
  function tabled(): Set<string> {
    return new Set(
      [
        ...tableRows(section('Endpoints').split('\n### ')[0]!),
        ...tableRows(section('Integrations: enrichment and the planning tool')),
      ].flatMap(([first = '']) => namedIn(first)),
    );
  }

  /** The operations one first cell names. */
  function namedIn(cell: string): string[] {
    const named: string[] = [];
    let previous = '';
    for (const [, method = '', raw = ''] of cell.matchAll(/`(GET|POST|PUT|PATCH|DELETE) ([^`?]+)[^`]*`/g)) {
      const path = raw.startsWith('…/') ? `${previous.split('/')[0]}/${raw.slice(2)}` : raw;
      previous = path;
      const optional = /^(.*)\[(\/[^\]]+)\]$/.exec(path);
      for (const each of optional ? [optional[1]!, `${optional[1]}${optional[2]}`] : [path]) {
        named.push(shape(method, each));
      }
    }
    return named;
  }

  /** The versions a Versions cell says: `all (added 2025-03)`, `v1 to 2025-07`, `v1, beta, 2025-03`. */
  function versionsIn(cell: string): string[] {
    if (cell.startsWith('all')) return [...ALL_VERSION_LABELS];
    const upTo = /^v1 to (\S+)$/.exec(cell)?.[1];
    if (upTo !== undefined) {
      return ALL_VERSION_LABELS.filter((label) => ApiVersion.parse(label)!.atMost(upTo as VersionLabel));
    }
    return cell.split(', ');
  }

  const mountedRoutes = () => {
    const router = express.Router({ mergeParams: true });
    // Registering uses nothing of the dependencies but the auth middlewares it spreads into each pipeline.
    registerRoutes(router, { auth: [] } as unknown as RouteDeps);
    return listRoutes(router);
  };

  it('when the Endpoints table says which versions have a route, then those are the versions it is mounted in', () => {
    const routes = mountedRoutes();
    const wrong = tableRows(section('Endpoints').split('\n### ')[0]!).flatMap(
      ([first = '', , versions = '']) =>
        namedIn(first).flatMap((operation) => {
          const route = routes.find((entry) => shape(entry.method, entry.path) === operation);
          const mounted = ALL_VERSION_LABELS.filter(
            (label) => route !== undefined && routeExistsIn(route, ApiVersion.parse(label)!),
          );
          return JSON.stringify(mounted) === JSON.stringify(versionsIn(versions))
            ? []
            : [`${operation}: README says ${versions}, mounted in ${mounted.join(', ')}`];
        }),
    );
    expect(wrong).toEqual([]);
  });

  it('when the app has a route, then an endpoint table names it (legacy-* aside: a sentence names them)', () => {
    const routes = mountedRoutes()
      .filter((route) => !/^\/legacy-/.test(route.path))
      .map((route) => shape(route.method, route.path));
    expect(routes.length).toBeGreaterThan(40);
    const named = tabled();
    expect(routes.filter((route) => !named.has(route))).toEqual([]);
    expect([...named].filter((route) => !routes.includes(route))).toEqual([]);
  });
});

describe('docker-compose.yml', () => {
  const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

  it('when it hands the app an environment variable, then src/config.ts reads that variable', () => {
    const app = /\nx-app: &app\n([\s\S]*?)\n\S/.exec(compose)?.[1] ?? '';
    const environment =
      /\n {2}environment: &app-environment\n((?: {4}.*\n| *#.*\n)+)/.exec(`\n${app}\n`)?.[1] ?? '';
    const names = [...environment.matchAll(/^ {4}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]!);
    expect(names).toContain('JWT_SECRET');
    expect(names.filter((name) => !(name in EnvSchema.shape))).toEqual([]);
  });

  /** The lines of one service, comments and blank lines included. */
  const service = (name: string): string =>
    new RegExp(`\\n {2}${name}:\\n((?: {4}.*\\n| *#.*\\n|\\n)+)`).exec(compose)?.[1] ?? '';
  const healthcheckOf = (block: string): string =>
    /\n {4}healthcheck:\n((?: {6}.*\n)+)/.exec(`\n${block}`)?.[1] ?? '';
  /** The URL a healthcheck's `node -e "fetch(...)..."` asks, the script with the URL taken out beside it. */
  const probeOf = (healthcheck: string): { url?: string; script?: string } => {
    const script = /^ {8}- "(fetch\('[^']+'\).*)"$/m.exec(healthcheck)?.[1];
    return {
      url: /^fetch\('([^']+)'\)/.exec(script ?? '')?.[1],
      script: script?.replace(/'[^']+'/, "'URL'"),
    };
  };

  it("when the workers run, then their probe server is on and a healthcheck asks its GET /health, the app's environment kept", () => {
    // The workers had no healthcheck: `docker compose ps` said nothing of a worker process that hung.
    const workers = service('workers');
    const environment = /\n {4}environment:\n((?: {6}.*\n)+)/.exec(`\n${workers}`)?.[1] ?? '';
    // A merge is shallow: an `environment` of its own without the app's left the workers without DATABASE_URL.
    expect(environment).toMatch(/^ {6}<<: \*app-environment$/m);
    const port = /^ {6}WORKER_METRICS_PORT: "(\d+)"$/m.exec(environment)?.[1];
    expect(port).toBeDefined();
    const healthcheck = healthcheckOf(workers);
    expect(healthcheck).toMatch(/^ {6}test:\n {8}- CMD\n {8}- node\n {8}- -e\n/m);
    expect(probeOf(healthcheck).url).toBe(`http://127.0.0.1:${port}/health`);
  });

  it("when the API runs, then a healthcheck of the workers' shape and timing asks its liveness route, GET /api/{version}/health, on its PORT", () => {
    // The API had no healthcheck: `docker compose ps` showed a hung API process as up.
    const api = healthcheckOf(service('api'));
    const workers = healthcheckOf(service('workers'));
    // One timing for both, from one anchor: not two copies that drift apart.
    const anchor = /\nx-app-healthcheck: &app-healthcheck\n((?: {2}.*\n)+)/.exec(compose)?.[1] ?? '';
    expect(anchor).toMatch(/^ {2}interval: \d+s$/m);
    expect(anchor).toMatch(/^ {2}timeout: \d+s$/m);
    expect(anchor).toMatch(/^ {2}retries: \d+$/m);
    for (const healthcheck of [api, workers]) {
      expect(healthcheck).toMatch(/^ {6}<<: \*app-healthcheck$/m);
      expect(healthcheck).toMatch(/^ {6}test:\n {8}- CMD\n {8}- node\n {8}- -e\n/m);
      expect(
        healthcheck.split('\n').filter((line) => /^ {6}\w/.test(line) && !/^ {6}test:/.test(line)),
      ).toEqual([]);
    }
    const probe = probeOf(api);
    expect(probe.script).toBeDefined();
    expect(probe.script).toBe(probeOf(workers).script);

    const app = /\nx-app: &app\n([\s\S]*?)\n\S/.exec(compose)?.[1] ?? '';
    const port = /^ {4}PORT: "(\d+)"$/m.exec(app)?.[1];
    expect(port).toBeDefined();
    const path = /^http:\/\/127\.0\.0\.1:(\d+)\/api\/([^/]+)(\/.*)$/.exec(probe.url ?? '');
    expect(path?.[1]).toBe(port);
    const version = ApiVersion.parse(path?.[2] ?? '');
    expect(version).toBeDefined();
    const router = express.Router({ mergeParams: true });
    registerRoutes(router, { auth: [] } as unknown as RouteDeps);
    const liveness = listRoutes(router).find((route) => route.method === 'GET' && route.path === path?.[3]);
    expect(liveness?.path).toBe('/health');
    expect(routeExistsIn(liveness!, version!)).toBe(true);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  /** The runtime stage's `ENV A=1 B=2` pairs (the stage after the last FROM). */
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env = new Map(
    [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((match) =>
      match[1]!.split(/\s+/).map((pair) => pair.split('=') as [string, string]),
    ),
  );

  it('when the image sets a variable, then src/config.ts reads it (NODE_ENV aside: it is npm and the libraries’)', () => {
    expect([...env.keys()].filter((name) => name !== 'NODE_ENV' && !(name in EnvSchema.shape))).toEqual([]);
  });

  it('when the image exposes a port, then the API listens on it beyond the container’s loopback', () => {
    const exposed = /^EXPOSE (\d+)$/m.exec(runtime)?.[1];
    expect(exposed).toBeDefined();
    expect(env.get('PORT') ?? String(defaultOf('PORT'))).toBe(exposed);
    expect(env.get('HOST') ?? defaultOf('HOST')).toBe('0.0.0.0');
  });
});

describe('README: the CLI', () => {
  /** Every command of `broadsheet` as main.ts registers it, with its long options and their defaults. */
  function cliCommands(): { name: string; options: string[]; defaults: [string, string][] }[] {
    const program = new Command('broadsheet');
    for (const register of [
      migrateCommand,
      projectCommands,
      clientCommands,
      importCommand,
      exportCommand,
      demoCommand,
      indexCommands,
      menuCommands,
      listCommands,
      mediaCommands,
    ])
      register(program);
    const walk = (
      command: Command,
      prefix: string,
    ): { name: string; options: string[]; defaults: [string, string][] }[] =>
      command.commands.flatMap((sub) => {
        const name = `${prefix}${sub.name()}`;
        const options = sub.options.map((option) => option.long ?? '').filter(Boolean);
        // A value's default (not a flag's true, nor a --no- option's): what the README shows as `[--opt value]`.
        const defaults = sub.options
          .filter((option) => option.required || option.optional)
          .filter((option) => option.defaultValue !== undefined && option.long !== undefined)
          .map((option): [string, string] => [option.long!, String(option.defaultValue)]);
        return sub.commands.length > 0 ? walk(sub, `${name} `) : [{ name, options, defaults }];
      });
    return walk(program, '');
  }

  /** The section's paragraphs, and each line of its code blocks on its own (one example is one command). */
  function chunks(): string[] {
    return section('The CLI')
      .split('\n\n')
      .flatMap((chunk) => (chunk.trimStart().startsWith('```') ? chunk.split('\n') : [chunk]));
  }

  it('when the CLI has a command or an option, then the README’s section on the CLI names the option where it names the command', () => {
    const commands = cliCommands();
    expect(commands.length).toBeGreaterThan(15);
    const said = chunks();
    const missing = commands.flatMap(({ name, options }) => {
      const about = said.filter((chunk) => chunk.includes(name));
      return [
        ...(about.length > 0 ? [] : [name]),
        ...options
          .filter((option) => !about.some((chunk) => chunk.includes(option)))
          .map((option) => `${name} ${option}`),
      ];
    });
    expect(missing).toEqual([]);
  });

  it('when an option has a default, then the README shows that default where it names the command (`[--opt value]`)', () => {
    const said = chunks();
    const commands = cliCommands();
    expect(commands.flatMap(({ defaults }) => defaults).length).toBeGreaterThan(5);
    const wrong = commands.flatMap(({ name, defaults }) =>
      defaults
        .filter(
          ([option, value]) =>
            !said.some((chunk) => chunk.includes(name) && chunk.includes(`${option} ${value}`)),
        )
        .map(([option, value]) => `${name} ${option} (default ${value})`),
    );
    expect(wrong).toEqual([]);
  });

  it('when the README names an option, then some command of the CLI has it', () => {
    const options = new Set(cliCommands().flatMap(({ options: own }) => own));
    // Not the CLI's: commander's own --help, and node's --env-file in `node --env-file=.broadsheet.env ...`.
    for (const other of ['--help', '--env-file']) options.add(other);
    const named = [...section('The CLI').matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((match) => match[0]);
    expect(named.length).toBeGreaterThan(20);
    expect([...new Set(named)].filter((option) => !options.has(option))).toEqual([]);
  });
});
