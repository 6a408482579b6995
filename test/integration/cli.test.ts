import { execFile, spawn } from 'node:child_process';
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApiClient } from '../../src/commands/api-clients';
import { ensureDatabase } from '../../src/db/migrate';
import { startTestApp, type TestApp } from '../helpers/app';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';
import { createPublishedDocument } from '../helpers/documents';
import { buildProjectConfig, createTestProject, READ, TEST_DESIGN, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { nestedArrays } from '../helpers/json';
import { startTcpProxy } from '../helpers/tcp-proxy';

/**
 * The operators' CLI, run as an operator runs it: a separate process on the run's database, Node on the
 * compiled CLI (test/helpers/compiled.ts). Not through tsx's own CLI: that is a second process that relays a
 * signal to the CLI and, when the CLI has not acknowledged it within 30 ms (a loaded machine), sends it again
 * and then SIGKILLs it, exiting 130 itself: a Ctrl-C test saw 130 without the CLI's message.
 */
const CLI = [CLI_SCRIPT];
const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(NODE, [...CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });
/** A command expected to fail: its exit code and stderr (a success fails the test). */
const cliRefusing = (...args: string[]) =>
  cli(...args).then(
    () => {
      throw new Error(`broadsheet ${args.slice(0, 2).join(' ')} should have failed`);
    },
    (error: { code: number; stderr: string }) => error,
  );

let app: TestApp;
let dir: string;

/** An import file in the run's folder: `total` documents `<prefix>0`, `<prefix>1` ..., a content type each. */
async function importFile(name: string, prefix: string, total: number): Promise<string> {
  const file = path.join(dir, name);
  const lines = Array.from({ length: total }, (_, i) =>
    JSON.stringify({ id: `${prefix}${i}`, contentType: 'regular' }),
  );
  await writeFile(file, lines.join('\n'));
  return file;
}

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'broadsheet-cli-'));
});
afterAll(() => app.close());

describe('broadsheet CLI', () => {
  it('when migrate runs on an up-to-date database, then it says so and exits 0', async () => {
    const { stderr } = await cli('migrate');
    expect(stderr).toContain('database is up to date');
  });

  it('when an operator creates a project, a client and imports a file, then the API serves the result', async () => {
    const config = buildProjectConfig();
    const configFile = path.join(dir, 'project.json');
    const designFile = path.join(dir, 'design.json');
    await writeFile(configFile, JSON.stringify(config));
    await writeFile(designFile, JSON.stringify(TEST_DESIGN));
    const created = await cli('project', 'create', '--config', configFile, '--design', designFile);
    const project = JSON.parse(created.stdout) as { projectId: number; handle: string };
    expect(project.handle).toBe(config.settings.handle);

    const client = await cli(
      'client',
      'create',
      '--project',
      project.handle,
      '--name',
      'ops',
      '--scopes',
      'public-api:read,public-api:write',
    );
    const token = client.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    expect(client.stdout).toBe(`${token}\n`);
    expect(client.stderr).toContain('scopes: public-api:read public-api:write');

    const ndjson = [
      {
        id: 'a-1',
        contentType: 'regular',
        title: 'First from the CLI',
        metadata: { title: 'First from the CLI' },
        content: [],
      },
      {
        id: 'a-2',
        contentType: 'regular',
        title: 'Second from the CLI',
        metadata: { title: 'Second from the CLI' },
        content: [],
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    const file = path.join(dir, 'docs.ndjson');
    await writeFile(file, ndjson);
    await cli('import', file, '--project', project.handle, '--system-name', 'cli-test', '--auto-publish');
    const { rows } = await app.ctx.pool.query<{ id: number }>(
      `SELECT id FROM documents WHERE project_id = $1 AND system_name = 'cli-test' ORDER BY external_id`,
      [project.projectId],
    );
    expect(rows).toHaveLength(2);
    const read = await apiClient(app.url, token).get(`documents/${rows[0]!.id}/latestPublication`);
    expect(read.status).toBe(200);
    expect(read.body.metadata.title).toBe('First from the CLI');

    const clientId = (client.stderr.match(/client ([0-9a-f-]{36})/) ?? [])[1]!;
    await cli('client', 'revoke', clientId);
    const revoked = await apiClient(app.url, token).get(`documents/${rows[0]!.id}/latestPublication`);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error_details).toEqual({ access_token: 'The access token was revoked.' });
  });

  it('when an operator creates a client with --secret, then its Basic credentials alone on stdout log a planning tool in', async () => {
    const { handle } = await createTestProject(app.ctx, {
      config: { planner: { integration: { enabled: true } } },
    });
    const created = await cli(
      'client',
      'create',
      '--project',
      handle,
      '--name',
      'desk',
      '--scopes',
      'planner',
      '--secret',
    );
    expect(created.stdout).toMatch(/^[0-9a-f-]{36}:[\w-]{43}\n$/);
    expect(created.stderr).toContain('the secret is not shown again');
    const response = await fetch(`${app.url}/api/2026-03/planner-integration/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(created.stdout.trim()).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ token_type: 'Bearer', scope: 'planner' });
    const stored = await app.ctx.pool.query<{ secret_hash: string }>(
      'SELECT secret_hash FROM api_clients WHERE id = $1',
      [created.stdout.split(':')[0]],
    );
    // Only a hash is kept: the secret itself is nowhere in the database.
    expect(stored.rows[0]!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0]!.secret_hash).not.toContain(created.stdout.trim().split(':')[1]);
  });

  it('when Elasticsearch cannot be reached, then an index command exits 1 naming ELASTICSEARCH_URL (no password), not a bare ECONNREFUSED', async () => {
    const failed = run(NODE, [...CLI, 'index', 'status'], {
      env: { ...process.env, LOG_LEVEL: 'silent', ELASTICSEARCH_URL: 'http://elastic:s3cret-pw@127.0.0.1:1' },
      timeout: 60_000,
    });
    await expect(failed).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'broadsheet: cannot use Elasticsearch at ELASTICSEARCH_URL=http://[REDACTED]@127.0.0.1:1: connect ECONNREFUSED',
      ),
    });
    await expect(failed).rejects.toMatchObject({ stderr: expect.not.stringContaining('s3cret-pw') });
  });

  it('when Postgres accepts connections and never answers, then migrate gives up within the connect timeout naming DATABASE_URL', async () => {
    // Its connections had no timeout: migrate waited forever on a stuck server, saying nothing.
    const target = new URL(process.env.DATABASE_URL ?? '');
    const proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    try {
      await proxy.down('hang');
      const proxied = new URL(target.toString());
      proxied.host = new URL(proxy.url).host;
      const failed = await run(NODE, [...CLI, 'migrate'], {
        env: {
          ...process.env,
          LOG_LEVEL: 'silent',
          DATABASE_URL: proxied.toString(),
          DATABASE_CONNECT_TIMEOUT_MS: '1000',
        },
        timeout: 30_000,
      }).then(
        () => {
          throw new Error('migrate should fail');
        },
        (error: { code: number | null; signal: string | null; stderr: string }) => error,
      );
      expect({ code: failed.code, signal: failed.signal }).toEqual({ code: 1, signal: null });
      expect(failed.stderr).toMatch(
        new RegExp(
          `^broadsheet: cannot use Postgres at DATABASE_URL=\\S+:${proxied.port}/\\S+: timeout expired\\n$`,
        ),
      );
    } finally {
      await proxy.close();
    }
  });

  it('when Postgres accepts connections and never answers, then a command that starts pg-boss gives up within the same connect timeout as migrate, in the same words', async () => {
    // pg-boss opened its connections under its own fixed 10 s: `client list` waited 10 s whatever
    // DATABASE_CONNECT_TIMEOUT_MS said, and said 'timeout exceeded when trying to connect'.
    const target = new URL(process.env.DATABASE_URL ?? '');
    const proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    try {
      await proxy.down('hang');
      const proxied = new URL(target.toString());
      proxied.host = new URL(proxy.url).host;
      const refusing = new URL(target.toString());
      refusing.port = '1';
      const clientList = (databaseUrl: URL) =>
        run(NODE, [...CLI, 'client', 'list', '--project', 'demo'], {
          env: {
            ...process.env,
            LOG_LEVEL: 'silent',
            DATABASE_URL: databaseUrl.toString(),
            DATABASE_CONNECT_TIMEOUT_MS: '1000',
          },
          timeout: 60_000,
        }).then(
          () => {
            throw new Error('client list should fail');
          },
          (error: { code: number | null; signal: string | null; stderr: string }) => error,
        );
      // The same command refused at once: the process's own start (loading its modules), which a loaded
      // machine makes take seconds.
      let started = Date.now();
      await clientList(refusing);
      const start = Date.now() - started;
      started = Date.now();
      const failed = await clientList(proxied);
      // The 1 s connect timeout and some slack over that start; pg-boss's start waited 10 s twice.
      expect(Date.now() - started - start).toBeLessThan(8_000);
      expect({ code: failed.code, signal: failed.signal }).toEqual({ code: 1, signal: null });
      expect(failed.stderr).toMatch(
        new RegExp(
          `^broadsheet: cannot use Postgres at DATABASE_URL=\\S+:${proxied.port}/\\S+: timeout expired\\n$`,
        ),
      );
    } finally {
      await proxy.close();
    }
  });

  it('when index verify cannot run, then it exits 2, apart from the 1 of drift found', async () => {
    // Elasticsearch or Postgres unreachable exited 1, as drift does: a monitor took an outage for drift.
    const verify = (env: Record<string, string>, ...args: string[]) =>
      run(NODE, [...CLI, 'index', 'verify', ...args], {
        env: { ...process.env, LOG_LEVEL: 'silent', ...env },
        timeout: 60_000,
      }).then(
        () => {
          throw new Error('index verify should fail');
        },
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const noSearch = await verify({ ELASTICSEARCH_URL: 'http://127.0.0.1:1' });
    expect(noSearch.code).toBe(2);
    expect(noSearch.stderr).toContain(
      'broadsheet: cannot use Elasticsearch at ELASTICSEARCH_URL=http://127.0.0.1:1',
    );
    expect(noSearch.stdout).toBe('');
    const database = new URL(process.env.DATABASE_URL ?? '');
    database.port = '1';
    const noDatabase = await verify({ DATABASE_URL: database.toString() });
    expect(noDatabase.code).toBe(2);
    expect(noDatabase.stderr).toContain('broadsheet: cannot use Postgres at DATABASE_URL=');
    const misspelt = await verify({}, '--repiar');
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain("unknown option '--repiar'");
  });

  it('when a command gets an unknown option or command, a missing or a bad value, then it says so in one line naming the command', async () => {
    // Commander printed 'error: ...' and then the command's whole help, the error scrolled away above it.
    for (const [args, message] of [
      [
        ['import', 'x.ndjson', '--project', 'p', '--system-name', 's', '--bogus'],
        "broadsheet import: unknown option '--bogus'",
      ],
      [
        ['client', 'create', '--name', 'x'],
        "broadsheet client create: required option '-p, --project <handle|id>' not specified",
      ],
      [
        ['list', 'ls', '--project'],
        "broadsheet list ls: option '-p, --project <handle|id>' argument missing",
      ],
      [
        [
          'export',
          '--out',
          path.join(dir, 'never.ndjson'),
          '--parallel',
          'abc',
          '--url',
          'http://127.0.0.1:1',
          '--token',
          't',
        ],
        "broadsheet export: option '--parallel <n>' argument 'abc' is invalid. must be a whole number from 1 to 32",
      ],
      [['migrat'], "broadsheet: unknown command 'migrat'"],
      [['index', 'rebuilt'], "broadsheet index: unknown command 'rebuilt'"],
    ] as const) {
      const failed = await cli(...args).then(
        () => {
          throw new Error(`${args.join(' ')} should fail`);
        },
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr.split('\n')).toEqual([expect.stringContaining(message), '']);
      expect(failed.stderr).toMatch(/\(see: broadsheet( [a-z]+)* --help\)\n$/);
    }
  }, 180_000);

  it('when the API cannot be reached, then export says each retry as it happens, then fails naming the URL and writes nothing', async () => {
    // The five tries (and a 429's Retry-After, up to an hour) were silent: only the last failure was printed.
    const out = path.join(dir, 'unreachable.ndjson');
    const failed = await cli(
      'export',
      '--out',
      out,
      '--url',
      'http://127.0.0.1:1',
      '--token',
      'unused',
      '--no-progress',
    ).then(
      () => {
        throw new Error('export should fail');
      },
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    const lines = failed.stderr.trimEnd().split('\n');
    const search =
      'GET http://127\\.0\\.0\\.1:1/api/2026-03/publications/search\\?sort=-?documentId&limit=1&fields=id';
    for (const attempt of [2, 3, 4, 5]) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^broadsheet: export: ${search} failed: connect ECONNREFUSED 127\\.0\\.0\\.1:1; trying again in [\\d.]+ s \\(try ${attempt} of 5\\)$`,
          ),
        ),
      );
    }
    expect(lines.at(-1)).toMatch(
      new RegExp(`^broadsheet: export: ${search} failed: connect ECONNREFUSED 127\\.0\\.0\\.1:1$`),
    );
    await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('when a command gets bad input, then it exits non-zero with a message naming the problem', async () => {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ v: 2, settings: { handle: '1 not a handle' } }));
    await expect(cli('project', 'create', '--config', bad)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('settings.handle'),
    });
    await expect(
      cli('client', 'create', '--project', 'no-such-project', '--name', 'x'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("project 'no-such-project' does not exist"),
    });
    // An id beyond the projects' integer ids names no project (it is not Postgres' 'out of range' error).
    for (const args of [
      ['client', 'create', '--project', '3000000000', '--name', 'x'],
      ['list', 'ls', '--project', '99999999999999999999'],
    ]) {
      await expect(cli(...args)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/project '\d+' does not exist/),
      });
    }
  });

  it('when demo is asked for fewer documents than it has or a number that is not whole, then it is refused naming --documents', async () => {
    // '--documents 5' loaded 30 documents without a word (the help says at least 30), '1e3' was read as 1000.
    for (const documents of ['5', '0', '1e3', 'abc']) {
      await expect(cli('demo', '--documents', documents)).rejects.toMatchObject({
        code: 1,
        stderr: 'broadsheet: --documents must be a whole number, at least 30\n',
      });
    }
  }, 180_000);

  it('when a count or the demo seed is not decimal digits in range, then it is refused naming the option, not read as Number() reads it', async () => {
    // Number() read '' (an unset variable) as 0, '1e2' as 100 and '0x10' as 16; the seed keeps 32 bits, so -1
    // and 4294967295 were the same demo. Past its checks a command reaches for Postgres: here that fails apart.
    const nowhere = new URL(process.env.DATABASE_URL ?? '');
    nowhere.port = '1';
    const refused = (args: string[], message: string) =>
      expect(
        run(NODE, [...CLI, ...args], {
          env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: nowhere.toString() },
          timeout: 60_000,
        }),
      ).rejects.toMatchObject({ code: 1, stderr: `broadsheet: ${message}\n` });
    for (const seed of ['', ' ', '1e3', '0x10', '-1', '4294967296']) {
      await refused(['demo', '--seed', seed], '--seed must be a whole number from 0 to 4294967295');
    }
    const file = path.join(dir, 'counts.ndjson');
    await writeFile(file, '{"id":"a","contentType":"regular"}');
    const importing = ['import', file, '--project', 'p', '--system-name', 's'];
    for (const batchSize of ['1e2', '0x10', '1.0']) {
      await refused(
        [...importing, '--batch-size', batchSize],
        '--batch-size must be an integer from 1 to 1000',
      );
    }
    for (const concurrency of ['1e0', '0x2', '2.0']) {
      await refused(
        [...importing, '--concurrency', concurrency],
        '--concurrency must be an integer from 1 to 8',
      );
    }
  }, 180_000);

  it('when project create gets a file that is not JSON, a design that is not one, a NUL or a taken handle, then it names the problem and stores nothing', async () => {
    const config = buildProjectConfig();
    const handle = config.settings.handle;
    const write = async (name: string, value: string) => {
      const file = path.join(dir, name);
      await writeFile(file, value);
      return file;
    };
    const configFile = await write('fresh-project.json', JSON.stringify(config));
    const notJson = await write('not-json.json', '{"name": ');
    const badDesigns = [
      await write('null-design.json', 'null'),
      await write('empty-design.json', '{}'),
      await write('string-components.json', JSON.stringify({ ...TEST_DESIGN, components: 'nope' })),
      // Stored before, while no URL reaches GET design/.. (URLs resolve the segment away).
      await write('dot-dot-version.json', JSON.stringify({ ...TEST_DESIGN, version: '..' })),
      // Stored whatever its size, then read for every publish of the project and answered in full by GET
      // design and by every composition that asks for it.
      await write(
        'large-design.json',
        JSON.stringify({
          ...TEST_DESIGN,
          components: [
            ...TEST_DESIGN.components,
            { name: 'huge', html: 'x'.repeat(6_000_000), directives: [] },
          ],
        }),
      ),
    ];
    const storedProjects = async () =>
      (await app.ctx.pool.query('SELECT id FROM projects WHERE handle = $1', [handle])).rows;

    // The parser's message alone did not say which file.
    await expect(cli('project', 'create', '--config', notJson)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`${notJson} is not JSON`),
    });
    await expect(cli('project', 'create', '--config', configFile, '--design', notJson)).rejects.toMatchObject(
      { code: 1, stderr: expect.stringContaining(`${notJson} is not JSON`) },
    );
    // A design was stored unchecked: null and {} failed with a TypeError and a not-null violation, and a
    // design without a component list was stored, after which GET design answered 500.
    const refused = await cliRefusing('project', 'create', '--config', configFile, '--design', ...badDesigns);
    expect(refused.code).toBe(1);
    for (const key of ['designs.0', 'designs.1.name', 'designs.1.components', 'designs.2.components']) {
      expect(refused.stderr).toContain(`"${key}"`);
    }
    expect(refused.stderr).toContain(
      `"designs.3.version": "cannot be '.' or '..': no URL can name it in GET design/{designVersion}"`,
    );
    expect(refused.stderr).toMatch(
      /"designs\.4": "is \d+ bytes as JSON: a design may be at most 5 MiB \(5242880 bytes\)"/,
    );
    // Postgres's 'invalid byte sequence for encoding "UTF8": 0x00' before.
    const withNul = await write(
      'nul-project.json',
      JSON.stringify({ ...config, settings: { ...config.settings, label: 'a\u0000b' } }),
    );
    await expect(cli('project', 'create', '--config', withNul)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('"projectConfig.settings.label": "must not contain the NUL character'),
    });
    expect(await storedProjects()).toEqual([]);

    const goodDesign = await write('good-design.json', JSON.stringify(TEST_DESIGN));
    const created = await cli('project', 'create', '--config', configFile, '--design', goodDesign);
    const { projectId } = JSON.parse(created.stdout) as { projectId: number };
    // The handle taken: 'duplicate key value violates unique constraint "projects_handle_key"' before.
    await expect(cli('project', 'create', '--config', configFile)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `A project with the handle '${handle}' exists already (projectId=${projectId})`,
      ),
    });
    expect(await storedProjects()).toEqual([{ id: projectId }]);
  });

  it('when a client is asked with a lifetime that is not a whole positive number of seconds, then it is refused and no client is stored', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const name = `lifetime-${projectId}`;
    for (const expiresIn of ['-5', '0', '1.5', 'abc', '99999999999999']) {
      await expect(
        cli('client', 'create', '--project', String(projectId), '--name', name, '--expires-in', expiresIn),
      ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--expires-in') });
    }
    // The use case itself refuses it before writing (a token jsonwebtoken would not sign left a client behind).
    await expect(
      createApiClient(app.ctx.pool, app.ctx.config.auth.jwtSecret, {
        projectId,
        name,
        scopes: READ,
        expiresInSeconds: 1.5,
      }),
    ).rejects.toMatchObject({ status: 400 });
    const stored = await app.ctx.pool.query('SELECT id FROM api_clients WHERE name = $1', [name]);
    expect(stored.rows).toEqual([]);
    const lasting = await cli(
      'client',
      'create',
      '--project',
      String(projectId),
      '--name',
      name,
      '--expires-in',
      '60',
    );
    expect(lasting.stdout.trim().split('.')).toHaveLength(3);
  });

  it('when a client name is empty or too long for a token to carry, then it is refused naming --name and no client is stored', async () => {
    const { projectId } = await createTestProject(app.ctx);
    // 20,000 characters made a 27 kB token that every request was refused for (431, headers too large).
    for (const name of ['', '   ', 'n'.repeat(201), 'n'.repeat(20_000)]) {
      await expect(
        cli('client', 'create', '--project', String(projectId), '--name', name),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--name.*(must not be empty|must be at most 200 characters)/),
      });
    }
    await expect(
      createApiClient(app.ctx.pool, app.ctx.config.auth.jwtSecret, {
        projectId,
        name: 'n'.repeat(201),
        scopes: READ,
      }),
    ).rejects.toMatchObject({
      status: 400,
      details: { name: 'ValidationError', message: 'name: must be at most 200 characters' },
    });
    const stored = await app.ctx.pool.query('SELECT id FROM api_clients WHERE project_id = $1', [projectId]);
    expect(stored.rows).toEqual([]);
    const longest = await cli('client', 'create', '--project', String(projectId), '--name', 'n'.repeat(200));
    const token = longest.stdout.trim();
    expect((await apiClient(app.url, token).get('document-lists')).status).toBe(200);
  });

  it('when scopes are separated by spaces, as a token carries them, then they are read like comma separated ones', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const created = await cli(
      'client',
      'create',
      '--project',
      String(projectId),
      '--name',
      'spaced',
      '--scopes',
      'public-api:read public-api:write, public-api:drafts:read',
    );
    expect(created.stderr).toContain('scopes: public-api:read public-api:write public-api:drafts:read');
  });

  it('when an operator lists a project’s clients, then each shows its id, scopes, secret, expiry, revocation and limit, never a token or secret', async () => {
    const { projectId, handle } = await createTestProject(app.ctx);
    const reader = await cli(
      'client',
      'create',
      '--project',
      handle,
      '--name',
      'reader',
      '--expires-in',
      '600',
    );
    const desk = await cli(
      'client',
      'create',
      '--project',
      String(projectId),
      '--name',
      'desk',
      '--scopes',
      'planner',
      '--secret',
      '--rate-limit',
      '100/10s',
    );
    const [deskId, deskSecret] = desk.stdout.trim().split(':') as [string, string];
    const readerId = JSON.parse(Buffer.from(reader.stdout.split('.')[1]!, 'base64url').toString()).jti;
    await cli('client', 'revoke', readerId);

    const listed = await cli('client', 'list', '--project', handle);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        id: readerId,
        name: 'reader',
        scopes: ['public-api:read'],
        secret: false,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        revokedAt: expect.any(String),
        rateLimit: 'none (RATE_LIMIT_DEFAULT)',
      },
      {
        id: deskId,
        name: 'desk',
        scopes: ['planner'],
        secret: true,
        createdAt: expect.any(String),
        expiresAt: null,
        revokedAt: null,
        rateLimit: '100/10s',
      },
    ]);
    expect(listed.stdout).not.toContain(deskSecret);
    expect(listed.stdout).not.toContain(reader.stdout.trim());
    await expect(cli('client', 'list', '--project', 'no-such-project')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("project 'no-such-project' does not exist"),
    });
  });

  it('when the database is missing or was never migrated, then the command says to run migrate', async () => {
    const databaseNamed = (suffix: string) => {
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.pathname = `${url.pathname}_${suffix}`;
      return url.toString();
    };
    const unmigrated = databaseNamed('unmigrated');
    await ensureDatabase(unmigrated);
    const withDatabase = (databaseUrl: string, ...args: string[]) =>
      run(NODE, [...CLI, ...args], {
        env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
        timeout: 60_000,
      });
    // Postgres's 'relation "projects" does not exist' alone, before.
    for (const [databaseUrl, args] of [
      [unmigrated, ['client', 'list', '--project', 'demo']],
      [unmigrated, ['client', 'create', '--project', 'demo', '--name', 'x']],
      [databaseNamed('missing'), ['client', 'list', '--project', 'demo']],
    ] as const) {
      await expect(withDatabase(databaseUrl, ...args)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/does not exist: .*apply the migrations with 'broadsheet migrate'/),
      });
    }
  });

  it('when revoke or set-rate-limit names a client id that is not a uuid, then it is an unknown client', async () => {
    for (const args of [
      ['client', 'revoke', 'not-a-uuid'],
      ['client', 'set-rate-limit', 'not-a-uuid', 'none'],
    ]) {
      await expect(cli(...args)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('API client not-a-uuid does not exist'),
      });
    }
  });

  describe('import: document limits and keys the API refuses', () => {
    const importedIds = async (projectId: number, systemName: string) =>
      (
        await app.ctx.pool.query<{ external_id: string }>(
          'SELECT external_id FROM documents WHERE project_id = $1 AND system_name = $2 ORDER BY external_id',
          [projectId, systemName],
        )
      ).rows.map((row) => row.external_id);

    it('when one document nests its metadata too deep, then it fails naming the path, the others are imported, and it exits 2', async () => {
      const { projectId } = await createTestProject(app.ctx);
      const file = path.join(dir, 'deep.ndjson');
      const documents = [
        { id: 'fine', contentType: 'regular', metadata: { title: 'Fine' } },
        { id: 'deep', contentType: 'regular', metadata: { deep: nestedArrays(70) } },
      ];
      await writeFile(file, documents.map((document) => JSON.stringify(document)).join('\n'));
      // Some failed, some imported: exit 2 (it was 0, a script took the partial import for a complete one).
      const { code, stdout, stderr } = await cli(
        'import',
        file,
        '--project',
        String(projectId),
        '--system-name',
        'limits',
      ).then(
        () => {
          throw new Error('import should exit non-zero when a document failed');
        },
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(code).toBe(2);
      expect(JSON.parse(stdout)).toEqual({ documents: 2, imported: 1, published: 0, failed: 1 });
      expect(stderr).toMatch(/failed deep: metadata\.deep(\.0)+ is nested more than 64 levels deep/);
      expect(await importedIds(projectId, 'limits')).toEqual(['fine']);
    });

    it('when the file is not UTF-8, missing or a directory, then it is refused naming the file and nothing is imported', async () => {
      const { projectId } = await createTestProject(app.ctx);
      const latin1 = path.join(dir, 'latin1.ndjson');
      // 'Café' as a Latin-1 export writes it: stored as 'Caf\uFFFD' before, the é lost for good.
      await writeFile(
        latin1,
        Buffer.concat([
          Buffer.from('{"id":"fine","contentType":"regular","metadata":{"title":"Fine"}}\n'),
          Buffer.from('{"id":"cafe","contentType":"regular","metadata":{"title":"Caf'),
          Buffer.from([0xe9]),
          Buffer.from('"}}\n'),
        ]),
      );
      const missing = path.join(dir, 'no-such-file.ndjson');
      for (const [file, message] of [
        [latin1, `${latin1} is not UTF-8 text (line 2): save it as UTF-8`],
        [missing, `cannot read ${missing}: no such file`],
        [dir, `cannot read ${dir}: it is a directory`],
      ] as const) {
        await expect(
          cli('import', file, '--project', String(projectId), '--system-name', 'encoding'),
        ).rejects.toMatchObject({ code: 1, stderr: `broadsheet: ${message}\n` });
      }
      expect(await importedIds(projectId, 'encoding')).toEqual([]);
    }, 180_000);

    it('when a document carries a __proto__ key, then the file is refused naming the path and nothing is imported', async () => {
      const { projectId } = await createTestProject(app.ctx);
      const file = path.join(dir, 'proto.ndjson');
      await writeFile(
        file,
        [
          '{"id":"fine","contentType":"regular","metadata":{"title":"Fine"}}',
          '{"id":"proto","contentType":"regular","metadata":{"__proto__":{"title":"x"}}}',
        ].join('\n'),
      );
      await expect(
        cli('import', file, '--project', String(projectId), '--system-name', 'proto'),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          `"documents.1.metadata.__proto__": "'__proto__' is not allowed as a key"`,
        ),
      });
      expect(await importedIds(projectId, 'proto')).toEqual([]);
    });

    it('when --auto-publish meets flags that are not an object, then the file is refused naming them and nothing is imported', async () => {
      const { projectId } = await createTestProject(app.ctx);
      const file = path.join(dir, 'flags.ndjson');
      await writeFile(
        file,
        [
          '{"id":"string","contentType":"regular","metadata":{"title":"A"},"flags":"ab"}',
          '{"id":"null","contentType":"regular","metadata":{"title":"B"},"flags":null}',
          '{"id":"fine","contentType":"regular","metadata":{"title":"C"},"flags":{"unpublish":false}}',
        ].join('\n'),
      );
      const refused = await cliRefusing(
        'import',
        file,
        '--project',
        String(projectId),
        '--system-name',
        'flags',
        '--auto-publish',
      );
      expect(refused.code).toBe(1);
      // Spread into an object, "ab" was named as flags.0 and flags.1 and null passed as {autoPublish: true}.
      expect(refused.stderr).toContain('"documents.0.flags": "must be an object"');
      expect(refused.stderr).toContain('"documents.1.flags": "must be an object"');
      expect(refused.stderr).not.toContain('documents.0.flags.0');
      expect(await importedIds(projectId, 'flags')).toEqual([]);
    });

    it('when the file is what broadsheet export wrote, then it is refused saying so and what import takes, and nothing is imported', async () => {
      // Validation alone said 'documents.0.contentType: is required' and 'systemdata: is not allowed', as if the
      // file were broken, with no word that export lines are no import documents.
      const { projectId } = await createTestProject(app.ctx);
      const file = path.join(dir, 'exported.ndjson');
      const exported = [1, 2, 3].map((n) => ({
        systemdata: { projectId, documentId: n, contentType: 'regular', documentType: 'article' },
        metadata: { title: `Exported ${n}` },
        content: [],
      }));
      await writeFile(file, exported.map((line) => JSON.stringify(line)).join('\n'));
      const refused = await cliRefusing(
        'import',
        file,
        '--project',
        String(projectId),
        '--system-name',
        'exported',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('"documents.0.contentType": "is required"');
      expect(refused.stderr).toContain(
        'document 1 (and 2 more) looks like a line written by broadsheet export (a publication as the delivery ' +
          'API serves it: systemdata, metadata, content), not a document to import. Import takes {id, ' +
          'contentType, metadata, content, design?, flags?, publishControl?}',
      );
      expect(await importedIds(projectId, 'exported')).toEqual([]);
    });

    it('when stderr is a log file, not a terminal, then import says its progress in plain lines with no carriage return', async () => {
      // It wrote '\r46/46\r46/46' there, as on a terminal: log files filled with carriage returns.
      const { projectId } = await createTestProject(app.ctx);
      const total = 46;
      const file = await importFile('logged.ndjson', 'l', total);
      const { stdout, stderr } = await cli(
        'import',
        file,
        '--project',
        String(projectId),
        '--system-name',
        'logged',
        '--batch-size',
        '5',
      );
      expect(JSON.parse(stdout)).toEqual({ documents: total, imported: total, published: 0, failed: 0 });
      expect(stderr).not.toContain('\r');
      const lines = stderr.split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.length).toBeLessThanOrEqual(10);
      for (const line of lines) expect(line).toMatch(/^import: [1-9]\d*\/46$/);
      expect(lines.at(-1)).toBe('import: 46/46');
      expect(await importedIds(projectId, 'logged')).toHaveLength(total);
    });

    it('when stderr is a terminal, then import keeps its one progress line redrawn in place', async () => {
      // script(1) gives the CLI a terminal, as an operator's shell does.
      const { projectId } = await createTestProject(app.ctx);
      const file = await importFile('terminal.ndjson', 't', 46);
      const command = [NODE, ...CLI, 'import', file, '--project', String(projectId), '--system-name', 'tty']
        .map((arg) => `'${arg}'`)
        .join(' ');
      const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, LOG_LEVEL: 'silent' },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/\rimport: 46\/46/);
      // No plain lines beside it (a terminal ends lines in '\r\n': '^' with /m would match after the '\r').
      expect(stdout).not.toMatch(/(^|\n)import: /);
      expect(stdout).toContain('{"documents":46,"imported":46,"published":0,"failed":0}');
      expect(await importedIds(projectId, 'tty')).toHaveLength(46);
    });

    it('when an import gets Ctrl-C, then what was written stays, its job ends failed saying it was interrupted, and it exits 130', async () => {
      // Killed by the signal, the CLI left its job 'started' for good: import/documents/status said so.
      const { projectId } = await createTestProject(app.ctx);
      const total = 20_000;
      const file = await importFile('interrupted.ndjson', 'i', total);
      const child = spawn(
        NODE,
        [...CLI, 'import', file, '--project', String(projectId), '--system-name', 'sigint'],
        { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      let signalled = false;
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // The first batches are in (its first progress line, a tenth of the file): stop it, as Ctrl-C does.
        if (!signalled && /^import: [1-9]\d*\/\d+$/m.test(stderr)) {
          signalled = true;
          child.kill('SIGINT');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(signalled).toBe(true);
      expect(code).toBe(130);
      expect(stderr).toMatch(/import stopped; job [0-9a-f-]{36} is marked failed, what was written stays/);
      const jobs = await app.ctx.pool.query<{ state: string; logs: { reason?: string }[] }>(
        'SELECT state, logs FROM import_jobs WHERE project_id = $1',
        [projectId],
      );
      expect(jobs.rows).toHaveLength(1);
      expect(jobs.rows[0]!.state).toBe('failed');
      const written = (await importedIds(projectId, 'sigint')).length;
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(total);
      // The job's own last line is no document: it was counted as one failed (and exited 2 had it not been 130).
      expect(JSON.parse(stdout)).toEqual({ documents: total, imported: written, published: 0, failed: 0 });
      expect(jobs.rows[0]!.logs.at(-1)!.reason).toBe(
        `The import job failed: interrupted after ${written} of ${total} documents; what was written stays, the ` +
          'rest was not imported (import the file again: documents are matched by external id)',
      );
    }, 120_000);

    it('when Postgres goes away mid-import, then it stops, reports what was written and what not, blames no document, and exits 75; the same command then finishes it', async () => {
      // Before, every document after the outage was printed as 'failed <id>: connect ECONNREFUSED ...', one
      // connection attempt each, and the run ended 'broadsheet: connect ECONNREFUSED' with no count of what had
      // been committed.
      const { projectId } = await createTestProject(app.ctx);
      const file = path.join(dir, 'outage.ndjson');
      const total = 3000;
      await writeFile(
        file,
        Array.from({ length: total }, (_, i) =>
          JSON.stringify({ id: `o${i}`, contentType: 'regular', flags: { autoPublish: true } }),
        ).join('\n'),
      );
      const target = new URL(process.env.DATABASE_URL ?? '');
      const proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
      try {
        const proxied = new URL(target.toString());
        proxied.host = new URL(proxy.url).host;
        const args = [...CLI, 'import', file, '--project', String(projectId), '--system-name', 'outage'];
        const child = spawn(NODE, [...args, '--batch-size', '100'], {
          env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: proxied.toString() },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        let cut = false;
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          // The first batches are in (its first progress line, a tenth of the file): Postgres goes away (a
          // restart, a failover), refusing connections.
          if (!cut && /^import: [1-9]\d*\/\d+$/m.test(stderr)) {
            cut = true;
            void proxy.down('refuse');
          }
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(cut).toBe(true);
        const reported = JSON.parse(stdout) as { published: number };
        expect(reported).toEqual({ documents: total, imported: 0, published: reported.published, failed: 0 });
        expect(reported.published).toBeGreaterThan(0);
        expect(stderr).not.toMatch(/failed o\d+/);
        // pg-boss's lost connection is one line, not the pg Client it carries dumped over a hundred lines.
        expect(stderr).not.toContain('connectionParameters');
        expect(stderr).toContain(
          `the database became unavailable after ${reported.published} of ${total} documents were written`,
        );
        expect(stderr).toContain('Import the file again to finish');
        expect(code).toBe(75);
        // What it reports is written; a batch whose connection was cut as it committed may be written too.
        const written = (await importedIds(projectId, 'outage')).length;
        expect(written).toBeGreaterThanOrEqual(reported.published);
        expect(written).toBeLessThanOrEqual(reported.published + 2 * 100);
        expect(written).toBeLessThan(total);
      } finally {
        await proxy.close();
      }
      // Run again (Postgres back): the rest is imported, and what was written before is not published again.
      const again = await cli('import', file, '--project', String(projectId), '--system-name', 'outage');
      expect(JSON.parse(again.stdout)).toEqual({
        documents: total,
        imported: 0,
        published: total,
        failed: 0,
      });
      const publications = await app.ctx.pool.query(
        'SELECT count(*)::int AS n FROM publications WHERE project_id = $1',
        [projectId],
      );
      expect(publications.rows[0].n).toBe(total);
    }, 120_000);

    it('when the reader of its output goes away mid-run (| head -1), then it carries on and finishes the import', async () => {
      // The progress written to a closed pipe failed with EPIPE, an unhandled 'error' event: the process died
      // with a stack trace partway (a demo load half done).
      const { projectId } = await createTestProject(app.ctx);
      const total = 3000;
      const file = await importFile('closed-pipe.ndjson', 'p', total);
      const child = spawn(
        NODE,
        [...CLI, 'import', file, '--project', String(projectId), '--system-name', 'pipe'],
        { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child.stderr.destroy();
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ documents: total, imported: total, published: 0, failed: 0 });
      expect(await importedIds(projectId, 'pipe')).toHaveLength(total);
    }, 120_000);
  });

  describe('menu load', () => {
    it('when an operator loads a menu file, then the API serves it to sites; a bad file is refused naming each path', async () => {
      const { projectId, handle } = await createTestProject(app.ctx);
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        documentType: 'page',
        contentType: 'page',
      });
      const menu = {
        handle: 'main',
        version: 4,
        label: 'Main',
        maxDepth: 1,
        nodes: [
          {
            label: 'Home',
            nodes: [{ label: 'Imprint', nodes: [], path: '/imprint', type: 'path' }],
            documentId: String(documentId),
            type: 'document',
          },
        ],
      };
      const file = path.join(dir, 'menu.json');
      await writeFile(file, JSON.stringify(menu));
      const { stdout, stderr } = await cli('menu', 'load', file, '--project', handle);
      expect(stderr).toContain('menu main version 4 stored in channel web');
      const stored = JSON.parse(stdout) as unknown;
      const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token, 'v1');
      const served = await api.get('menus?handle=main');
      expect(served.body).toEqual([stored]);
      expect(served.body[0].nodes[0]).toMatchObject({
        id: '1',
        type: 'document',
        documentId: String(documentId),
      });

      const broken = path.join(dir, 'broken-menu.json');
      await writeFile(
        broken,
        JSON.stringify({
          ...menu,
          nodes: [
            { label: 'Gone', type: 'document', documentId: '999999999' },
            { label: 'X', type: 'uri', uri: 'javascript:void(0)' },
          ],
        }),
      );
      await expect(cli('menu', 'load', broken, '--project', handle)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          '"nodes.1.uri": "must be an absolute http, https, mailto or tel URI"',
        ),
      });
      // The unknown document is named in the same run as the malformed uri, not once the uri is fixed.
      await expect(cli('menu', 'load', broken, '--project', handle)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          '"nodes.0.documentId": "document 999999999 does not exist in this project"',
        ),
      });
      await writeFile(broken, '{"handle": ');
      await expect(cli('menu', 'load', broken, '--project', handle)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('broken-menu.json is not JSON'),
      });
      expect((await api.get('menus?handle=main')).body).toEqual([stored]);

      // A byte order mark (what some editors save first) is no part of the JSON: the same menu loads.
      await writeFile(file, `\uFEFF${JSON.stringify(menu)}`);
      const withBom = await cli('menu', 'load', file, '--project', handle);
      expect(withBom.stderr).toContain('menu main version 4 stored in channel web');
      expect(JSON.parse(withBom.stdout)).toEqual(stored);
    });
  });

  describe('menu load: a document deleted since the menu was stored', () => {
    it('when the unchanged file is loaded again with an edit, then it is stored; a node it adds for a missing document exits 1 naming it, the menu unchanged', async () => {
      const { projectId, handle } = await createTestProject(app.ctx);
      const gone = String((await createPublishedDocument(app.ctx, projectId)).documentId);
      const kept = String((await createPublishedDocument(app.ctx, projectId)).documentId);
      const menu = {
        handle: 'main',
        label: 'Main',
        maxDepth: 0,
        nodes: [
          { label: 'Gone', type: 'document', documentId: gone },
          { label: 'Kept', type: 'document', documentId: kept },
        ],
      };
      const file = path.join(dir, 'menu-with-gone.json');
      await writeFile(file, JSON.stringify(menu));
      expect((await cli('menu', 'load', file, '--project', handle)).stderr).toContain(
        'menu main version 1 stored in channel web',
      );
      // No API deletes a document; it goes the way an operator would remove it.
      await app.ctx.pool.query('DELETE FROM documents WHERE id = $1', [gone]);

      await writeFile(file, JSON.stringify({ ...menu, label: 'Main menu' }));
      const reloaded = await cli('menu', 'load', file, '--project', handle);
      expect(reloaded.stderr).toContain('menu main version 2 stored in channel web');
      const stored = JSON.parse(reloaded.stdout) as { label: string; nodes: { documentId?: string }[] };
      expect([stored.label, stored.nodes.map((node) => node.documentId)]).toEqual([
        'Main menu',
        [gone, kept],
      ]);

      await writeFile(
        file,
        JSON.stringify({
          ...menu,
          label: 'Not stored',
          nodes: [...menu.nodes, { label: 'New', type: 'document', documentId: '999999999' }],
        }),
      );
      await expect(cli('menu', 'load', file, '--project', handle)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          '"nodes.2.documentId": "document 999999999 does not exist in this project"',
        ),
      });
      const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token, 'v1');
      expect((await api.get('menus?handle=main')).body).toEqual([stored]);
    }, 180_000);
  });

  describe('list create, add, ls', () => {
    // Each call is a process of its own: on a loaded machine a handful of them take a while.
    const CLI_TEST_TIMEOUT = 180_000;

    it(
      'when an operator creates and fills a list, then the API serves its published documents',
      async () => {
        const { projectId, handle } = await createTestProject(app.ctx);
        const first = (await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'First' } }))
          .documentId;
        const second = (await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Second' } }))
          .documentId;

        const created = await cli('list', 'create', '--project', handle, '--name', 'Front page');
        const list = JSON.parse(created.stdout) as { id: number; name: string };
        expect(list).toEqual({ id: expect.any(Number), name: 'Front page' });
        expect(created.stderr).toContain(`list ${list.id} 'Front page' created`);

        const added = await cli('list', 'add', String(list.id), String(first), String(second), String(first));
        expect(JSON.parse(added.stdout)).toEqual({ id: list.id, added: [first, second], alreadyListed: [] });
        const again = await cli('list', 'add', String(list.id), String(second));
        expect(JSON.parse(again.stdout)).toEqual({ id: list.id, added: [], alreadyListed: [second] });

        const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
        const served = await api.get(`document-lists/${list.id}?reverse=false`);
        expect(served.status).toBe(200);
        expect(
          served.body.documents.map((document: { metadata: { title: string } }) => document.metadata.title),
        ).toEqual(['First', 'Second']);

        const ls = await cli('list', 'ls', '--project', String(projectId));
        expect(JSON.parse(ls.stdout)).toEqual([
          { id: list.id, name: 'Front page', items: 2, published: 2, updatedAt: expect.any(String) },
        ]);
      },
      CLI_TEST_TIMEOUT,
    );

    it(
      'when a name is taken, an id is bad or not the project’s, then exit 1 saying why, and the list is unchanged',
      async () => {
        const { projectId, handle } = await createTestProject(app.ctx);
        const first = (await createPublishedDocument(app.ctx, projectId)).documentId;
        const list = await app.ctx.commands.createDocumentList({ projectId, name: 'Front page' });
        await app.ctx.commands.addToDocumentList({ listId: list.id, documentIds: [first] });

        await expect(
          cli('list', 'create', '--project', handle, '--name', 'Front page'),
        ).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining("already has a list named 'Front page'"),
        });
        const other = await createTestProject(app.ctx);
        const foreign = (await createPublishedDocument(app.ctx, other.projectId)).documentId;
        await expect(cli('list', 'add', String(list.id), String(foreign))).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining(`No document ${foreign} in the project of list ${list.id}`),
        });
        await expect(cli('list', 'add', String(list.id), 'x1')).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining('documentId must be positive integer document ids, not x1'),
        });
        await expect(cli('list', 'add', '1e3', String(first))).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining("listId must be a positive integer, not '1e3'"),
        });
        await expect(cli('list', 'add', '9999999999', String(first))).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining('Document list 9999999999 not found'),
        });
        const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
        const served = await api.get(`document-lists/${list.id}`);
        expect(
          served.body.documents.map((d: { systemdata: { documentId: number } }) => d.systemdata.documentId),
        ).toEqual([first]);
      },
      CLI_TEST_TIMEOUT,
    );
  });
});
