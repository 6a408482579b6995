import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { revokeApiClient } from '../../src/commands/api-clients';
import { parseExportState } from '../../src/domain/export-plan';
import { runExport, statePath } from '../../src/export/exporter';
import { startTestApp, type TestApp } from '../helpers/app';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';

/** `broadsheet export`, run as an operator runs it (a separate process) against the real app on port 0. */
const run = promisify(execFile);
/** One process (Node on the compiled CLI, no wrapper in between), so that killing it kills the export. */
const CLI = [CLI_SCRIPT];
const { BROADSHEET_URL: _url, BROADSHEET_TOKEN: _token, ...baseEnv } = process.env;
const env = { ...baseEnv, LOG_LEVEL: 'silent' };
const cli = (...args: string[]) => run(NODE, [...CLI, ...args], { env, timeout: 120_000 });

interface Line {
  systemdata: { documentId: number; projectId: number; lastPublicationDate: string };
  metadata: { title: string };
}

const readLines = async (file: string): Promise<Line[]> => {
  const text = await readFile(file, 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
};
const idsOf = (lines: Line[]) => lines.map((line) => line.systemdata.documentId).sort((a, b) => a - b);
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/**
 * An HTTP proxy in front of `target` that holds each request until the current gate opens: a test closes the
 * gate while it changes something, so that no request can overtake the change.
 */
async function gatedProxy(target: string): Promise<{ url: string; gate: Promise<unknown>; server: Server }> {
  const proxy = {
    url: '',
    gate: Promise.resolve() as Promise<unknown>,
    server: createServer((req, res) => {
      void proxy.gate.then(() => {
        const upstream = request(
          `${target}${req.url ?? '/'}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      });
    }),
  };
  proxy.server.listen(0, '127.0.0.1');
  await once(proxy.server, 'listening');
  proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
  return proxy;
}

describe('broadsheet export', () => {
  let app: TestApp;
  let dir: string;
  let token: string;
  let projectId: number;
  /** The project's published documents: 2024 ones, then 2025 ones, interleaved with other rows. */
  const published: number[] = [];
  const publishedIn2025: number[] = [];
  let otherProjectDocument: number;
  let otherProjectId: number;
  let draftOnly: number;

  beforeAll(async () => {
    app = await startTestApp();
    dir = await mkdtemp(path.join(tmpdir(), 'broadsheet-export-'));
    projectId = (await createTestProject(app.ctx)).projectId;
    const other = (await createTestProject(app.ctx)).projectId;
    otherProjectId = other;
    token = (await tokenFor(app.ctx, projectId, ['public-api:read'])).token;
    const COUNT = 260;
    for (let n = 0; n < COUNT; n++) {
      const in2025 = n >= COUNT / 2;
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        now: new Date(Date.UTC(in2025 ? 2025 : 2024, 0, 1 + (n % 28), 12)),
        metadata: { title: `Export ${n}: "quoted", line\nbreak, ünïcödé` },
        content: [{ id: 'p', component: 'paragraph', content: { text: `Paragraph ${n}` } }],
      });
      published.push(documentId);
      if (in2025) publishedIn2025.push(documentId);
      // Ids of another project inside the ranges: never exported with this project's token.
      if (n === 40) otherProjectDocument = (await createPublishedDocument(app.ctx, other)).documentId;
    }
    // A document that was never published, inside the ranges.
    const channel = await app.ctx.pool.query<{ id: number }>(
      'SELECT id FROM channels WHERE project_id = $1',
      [projectId],
    );
    draftOnly = (
      await app.ctx.pool.query<{ id: number }>(
        `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
         VALUES ($1, $2, 'article', 'regular', '{}', '[]') RETURNING id`,
        [projectId, channel.rows[0]!.id],
      )
    ).rows[0]!.id;
    await indexNow(app.ctx, projectId, published);
    await indexNow(app.ctx, other, [otherProjectDocument]);
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('when an operator exports with --parallel 3, then every published document of the token’s project is in the file exactly once, as the API serves it', async () => {
    const out = path.join(dir, 'all.ndjson');
    const { stdout } = await cli(
      'export',
      '--out',
      out,
      '--parallel',
      '3',
      '--url',
      app.url,
      '--token',
      token,
    );
    const summary = JSON.parse(stdout) as { documents: number; written: number; complete: boolean };
    expect(summary).toMatchObject({ documents: published.length, written: published.length, complete: true });
    const lines = await readLines(out);
    expect(idsOf(lines)).toEqual([...published].sort((a, b) => a - b));
    expect(idsOf(lines)).not.toContain(otherProjectDocument);
    expect(idsOf(lines)).not.toContain(draftOnly);
    expect(lines.every((line) => line.systemdata.projectId === projectId)).toBe(true);
    // The item bytes pass through: strings with escapes and non-ASCII survive.
    const first = lines.find((line) => line.systemdata.documentId === published[0])!;
    expect(first.metadata.title).toBe('Export 0: "quoted", line\nbreak, ünïcödé');
    // Done: no state file is left behind.
    expect(await exists(statePath(out))).toBe(false);
  });

  it('when an export is mapped to import documents as the README says, then importing it into another project publishes the same metadata and content', async () => {
    // The README's jq program, line for line: id from systemdata.documentId, contentType and design from
    // systemdata, metadata and content as they are, systemdata left out, published on import.
    const out = path.join(dir, 'round-trip.ndjson');
    await cli('export', '--out', out, '--url', app.url, '--token', token);
    const text = await readFile(out, 'utf8');
    const mapped = path.join(dir, 'round-trip-import.ndjson');
    const asImport = (line: string) => {
      const { systemdata, metadata, content } = JSON.parse(line) as {
        systemdata: { documentId: number; contentType: string; design?: unknown };
        metadata: unknown;
        content: unknown;
      };
      return JSON.stringify({
        id: String(systemdata.documentId),
        contentType: systemdata.contentType,
        metadata,
        content,
        ...(systemdata.design ? { design: systemdata.design } : {}),
        flags: { autoPublish: true },
      });
    };
    await writeFile(mapped, text.split('\n').filter(Boolean).map(asImport).join('\n'));
    const target = (await createTestProject(app.ctx)).projectId;
    const imported = await cli('import', mapped, '--project', String(target), '--system-name', 'round-trip');
    expect(JSON.parse(imported.stdout)).toEqual({
      documents: published.length,
      imported: 0,
      published: published.length,
      failed: 0,
    });
    const rows = await app.ctx.pool.query<{ metadata: { title: string }; content: unknown }>(
      `SELECT metadata, content FROM documents
       WHERE project_id = $1 AND system_name = 'round-trip' AND external_id = $2`,
      [target, String(published[0])],
    );
    expect(rows.rows).toHaveLength(1);
    const exported = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { systemdata: { documentId: number }; content: unknown })
      .find((line) => line.systemdata.documentId === published[0])!;
    expect(rows.rows[0]!.metadata.title).toBe('Export 0: "quoted", line\nbreak, ünïcödé');
    expect(rows.rows[0]!.content).toEqual(exported.content);
  });

  it('when --since is given, then only documents whose latest publication is at or after it are exported', async () => {
    const out = path.join(dir, 'since.ndjson');
    await cli('export', '--out', out, '--since', '2025-01-01', '--url', app.url, '--token', token);
    expect(idsOf(await readLines(out))).toEqual([...publishedIn2025].sort((a, b) => a - b));
  });

  it('when an export is stopped midway and parts of a chunk were written after its last saved state, then a rerun resumes and every document is there exactly once', async () => {
    const out = path.join(dir, 'resumed.ndjson');
    const stop = new AbortController();
    // Stopped after the first chunk arrives, as Ctrl-C would; the pullers finish the chunk they are on.
    const first = await runExport({
      url: app.url,
      token,
      out,
      parallel: 2,
      signal: stop.signal,
      onProgress: ({ chunksDone }) => {
        if (chunksDone >= 1) stop.abort();
      },
    });
    expect(first.complete).toBe(false);
    expect(first.documents).toBeGreaterThan(0);
    expect(first.documents).toBeLessThan(published.length);
    const saved = parseExportState(await readFile(statePath(out), 'utf8'));
    if (!saved.ok) throw new Error(saved.message);
    expect(saved.state.bytes).toBe((await stat(out)).size);
    // A process killed between writing a chunk and saving the state leaves lines the state does not know of,
    // the last one cut short.
    const partial = (await readFile(out, 'utf8')).split('\n').slice(0, 2).join('\n');
    await appendFile(out, `${partial}\n{"systemdata": {"documentId"`);

    const { stdout } = await cli(
      'export',
      '--out',
      out,
      '--parallel',
      '2',
      '--url',
      app.url,
      '--token',
      token,
    );
    const summary = JSON.parse(stdout) as { documents: number; written: number; resumed: boolean };
    expect(summary).toMatchObject({ documents: published.length, resumed: true });
    expect(summary.written).toBe(published.length - first.documents);
    expect(idsOf(await readLines(out))).toEqual([...published].sort((a, b) => a - b));
    expect(await exists(statePath(out))).toBe(false);
  });

  it('when the token is revoked midway, then the export stops with the 401, keeps what it wrote, and a rerun with a new token completes it', async () => {
    const out = path.join(dir, 'revoked.ndjson');
    const revoked = await tokenFor(app.ctx, projectId, ['public-api:read']);
    // Requests wait at the proxy while the revocation commits: the export's next request meets a revoked token.
    const proxy = await gatedProxy(app.url);
    let revoking: Promise<unknown> | undefined;
    const failed = runExport({
      url: proxy.url,
      token: revoked.token,
      out,
      parallel: 1,
      onProgress: ({ chunksDone }) => {
        if (chunksDone === 1) proxy.gate = revoking ??= revokeApiClient(app.ctx.pool, revoked.clientId);
      },
    });
    try {
      await expect(failed).rejects.toThrow('answered 401');
      await revoking;
      const saved = parseExportState(await readFile(statePath(out), 'utf8'));
      if (!saved.ok) throw new Error(saved.message);
      expect(saved.state.documents).toBeGreaterThan(0);
      expect(saved.state.documents).toBeLessThan(published.length);

      // The state names the URL it exported from: the rerun goes the same way.
      const { stdout } = await cli('export', '--out', out, '--url', proxy.url, '--token', token);
      expect(JSON.parse(stdout)).toMatchObject({ documents: published.length, resumed: true });
      expect(idsOf(await readLines(out))).toEqual([...published].sort((a, b) => a - b));
    } finally {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  });

  it('when the export is stopped while a 429 asks it to wait an hour, then it stops at once and a rerun completes it', async () => {
    const out = path.join(dir, 'limited.ndjson');
    const stop = new AbortController();
    // Forwards to the app until `limited`; then answers as a client limited per day is answered.
    const proxy = { limited: false, refused: 0, url: '', server: undefined as unknown as Server };
    proxy.server = createServer((req, res) => {
      if (proxy.limited) {
        proxy.refused += 1;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' }).end('{}');
        // Ctrl-C while the export waits out the Retry-After.
        setTimeout(() => stop.abort(), 100);
        return;
      }
      const upstream = request(`${app.url}${req.url ?? '/'}`, { headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      // It waited the whole hour before (the signal was read only between chunks and attempts).
      const stopped = await runExport({
        url: proxy.url,
        token,
        out,
        parallel: 1,
        signal: stop.signal,
        onProgress: ({ chunksDone }) => {
          if (chunksDone === 1) proxy.limited = true;
        },
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(proxy.refused).toBe(1);
      expect(stopped).toMatchObject({ complete: false });
      expect(stopped.documents).toBeGreaterThan(0);
      expect(stopped.documents).toBeLessThan(published.length);

      proxy.limited = false;
      const { stdout } = await cli('export', '--out', out, '--url', proxy.url, '--token', token);
      expect(JSON.parse(stdout)).toMatchObject({ documents: published.length, resumed: true });
      expect(idsOf(await readLines(out))).toEqual([...published].sort((a, b) => a - b));
    } finally {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  });

  it('when the export process is killed mid-run, then the rerun completes it with every document exactly once', async () => {
    const out = path.join(dir, 'killed.ndjson');
    const child = execFile(
      NODE,
      [...CLI, 'export', '--out', out, '--parallel', '1', '--url', app.url, '--token', token],
      { env },
    );
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // Killed (no chance to save anything) as soon as the first state is on disk, or wherever it got to.
    const deadline = Date.now() + 60_000;
    while (!(await exists(statePath(out))) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill('SIGKILL');
    await exited;
    await cli('export', '--out', out, '--url', app.url, '--token', token);
    expect(idsOf(await readLines(out))).toEqual([...published].sort((a, b) => a - b));
  });

  it('when the output exists and there is nothing to resume, then it refuses without --force and overwrites with it', async () => {
    const out = path.join(dir, 'existing.ndjson');
    await writeFile(out, 'keep me\n');
    await expect(cli('export', '--out', out, '--url', app.url, '--token', token)).rejects.toMatchObject({
      stderr: expect.stringContaining('exists and there is no export to resume; pass --force'),
    });
    expect(await readFile(out, 'utf8')).toBe('keep me\n');
    await cli('export', '--out', out, '--force', '--url', app.url, '--token', token);
    expect(idsOf(await readLines(out))).toHaveLength(published.length);
  });

  it('when a resume asks for a different --since than the export it continues, then it refuses and names the flag', async () => {
    const out = path.join(dir, 'mismatch.ndjson');
    await writeFile(out, '');
    await writeFile(
      statePath(out),
      JSON.stringify({
        version: 1,
        url: app.url,
        since: null,
        ranges: [{ from: 1, end: 101, next: 1 }],
        bytes: 0,
        documents: 0,
      }),
    );
    await expect(
      cli('export', '--out', out, '--since', '2025-01-01', '--url', app.url, '--token', token),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('the same --since') });
  });

  it('when a stopped export is rerun with a token of another project, then it refuses, leaves the file as it was, and the right token completes it', async () => {
    const out = path.join(dir, 'other-project.ndjson');
    const stop = new AbortController();
    const first = await runExport({
      url: app.url,
      token,
      out,
      parallel: 1,
      signal: stop.signal,
      onProgress: ({ chunksDone }) => {
        if (chunksDone >= 1) stop.abort();
      },
    });
    expect(first.complete).toBe(false);
    const written = await readFile(out, 'utf8');
    const state = await readFile(statePath(out), 'utf8');
    // Its ranges and lines are this project's: the other project's documents would be appended to them.
    const otherToken = (await tokenFor(app.ctx, otherProjectId, ['public-api:read'])).token;
    await expect(cli('export', '--out', out, '--url', app.url, '--token', otherToken)).rejects.toMatchObject({
      stderr: expect.stringContaining(
        `is an export of project ${projectId}, but the token reads project ${otherProjectId}`,
      ),
    });
    expect(await readFile(out, 'utf8')).toBe(written);
    expect(await readFile(statePath(out), 'utf8')).toBe(state);

    const { stdout } = await cli('export', '--out', out, '--url', app.url, '--token', token);
    expect(JSON.parse(stdout)).toMatchObject({ documents: published.length, resumed: true, complete: true });
    expect(idsOf(await readLines(out))).toEqual([...published].sort((a, b) => a - b));
  });

  it.each([
    [['--parallel', '0'], '--parallel'],
    [['--parallel', 'four'], '--parallel'],
    [['--since', 'yesterday'], '--since'],
    // Days and hours that do not exist (Date.parse read them as 2026-03-02 and the next day's midnight).
    [['--since', '2026-02-30'], '--since'],
    [['--since', '2026-01-31T24:00'], '--since'],
  ])('when the options are %j, then it exits non-zero naming %s', async (args, flag) => {
    const out = path.join(dir, 'bad.ndjson');
    await expect(
      cli('export', '--out', out, '--url', app.url, '--token', token, ...args),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining(flag),
    });
    expect(await exists(out)).toBe(false);
  });

  it('when the token is missing, then it says which option or variable gives it', async () => {
    await expect(cli('export', '--out', path.join(dir, 'x.ndjson'), '--url', app.url)).rejects.toMatchObject({
      stderr: expect.stringContaining('BROADSHEET_TOKEN'),
    });
  });

  it('when the token is not valid, then it exits non-zero with the API’s 401 and writes nothing', async () => {
    const out = path.join(dir, 'unauthorised.ndjson');
    await expect(
      cli('export', '--out', out, '--url', app.url, '--token', 'not-a-token'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('401'),
    });
    expect(await exists(out)).toBe(false);
  });

  it('when --url is the API base URL the demo prints (…/api/2026-03), then it is the same server; another version is refused', async () => {
    const out = path.join(dir, 'versioned-url.ndjson');
    const { stdout } = await cli(
      'export',
      '--out',
      out,
      '--since',
      '2025-01-01',
      '--url',
      `${app.url}/api/2026-03/`,
      '--token',
      token,
    );
    expect(JSON.parse(stdout)).toMatchObject({ documents: publishedIn2025.length, complete: true });
    expect(idsOf(await readLines(out))).toEqual([...publishedIn2025].sort((a, b) => a - b));
    await expect(
      cli(
        'export',
        '--out',
        path.join(dir, 'old.ndjson'),
        '--url',
        `${app.url}/api/2025-11`,
        '--token',
        token,
      ),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--url'),
    });
  });

  it('when the token’s project has nothing published, then the file is empty', async () => {
    const empty = (await createTestProject(app.ctx)).projectId;
    const emptyToken = (await tokenFor(app.ctx, empty, ['public-api:read'])).token;
    const out = path.join(dir, 'empty.ndjson');
    const { stdout } = await cli('export', '--out', out, '--url', app.url, '--token', emptyToken);
    expect(JSON.parse(stdout)).toMatchObject({ documents: 0, complete: true });
    expect(await readFile(out, 'utf8')).toBe('');
  });

  it('when the export is stopped before anything was planned or written, then it exits 130 saying there is nothing to resume, not to rerun to resume', async () => {
    const out = path.join(dir, 'stopped-early.ndjson');
    // Every request answered as a client limited per day is: the export waits out the Retry-After at its first
    // request, before it knows the ids or writes a byte, and Ctrl-C comes then.
    let asked = 0;
    const limited = createServer((_req, res) => {
      asked += 1;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' }).end('{}');
    });
    limited.listen(0, '127.0.0.1');
    await once(limited, 'listening');
    const url = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
    try {
      const child = execFile(
        NODE,
        [...CLI, 'export', '--out', out, '--url', url, '--token', token, '--no-progress'],
        { env },
      );
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 60_000;
      while (asked === 0 && child.exitCode === null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      // It said 'rerun the same command to resume (<file>.state.json)', a file that was never written.
      expect(stderr).not.toContain('rerun');
      expect(stderr).toContain(`broadsheet: export stopped before anything was written; nothing to resume`);
      expect(await exists(statePath(out))).toBe(false);
      expect(await exists(out)).toBe(false);
    } finally {
      limited.closeAllConnections();
      limited.close();
    }
  });

  it('when --out is in a directory that does not exist, then it is a one-line usage error, exit 2, before any request', async () => {
    // It connected and planned first (five tries of an unreachable API), then failed opening the file.
    const out = path.join(dir, 'no-such-directory', 'archive.ndjson');
    const failed = await cli('export', '--out', out, '--url', 'http://127.0.0.1:1', '--token', 't').then(
      () => {
        throw new Error('export should fail');
      },
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toBe(
      `broadsheet export: option '-o, --out <file>' argument '${out}' is invalid: its directory ${path.dirname(out)} does not exist (see: broadsheet export --help)\n`,
    );
    // A file where the directory should be is refused the same way.
    const file = path.join(dir, 'a-file.txt');
    await writeFile(file, '');
    await expect(
      cli('export', '--out', path.join(file, 'x.ndjson'), '--url', 'http://127.0.0.1:1', '--token', 't'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^broadsheet export: .* is not a directory \(see: broadsheet export --help\)\n$/,
      ),
    });
    await expect(
      cli('export', '--out', dir, '--url', 'http://127.0.0.1:1', '--token', 't'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^broadsheet export: .* is a directory \(see: broadsheet export --help\)\n$/,
      ),
    });
  });

  it('when --url carries a user and password, then no notice or error shows the password, nor does the state file', async () => {
    const out = path.join(dir, 'credentials.ndjson');
    const failed = await cli(
      'export',
      '--out',
      out,
      '--url',
      'http://operator:s3cret-pw@127.0.0.1:1',
      '--token',
      't',
      '--no-progress',
    ).then(
      () => {
        throw new Error('export should fail');
      },
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain('s3cret-pw');
    const lines = failed.stderr.trimEnd().split('\n');
    // Each retry's notice and the failure name the URL, its credentials redacted.
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      expect(line).toMatch(
        /^broadsheet: export: GET http:\/\/\[REDACTED\]@127\.0\.0\.1:1\/api\/2026-03\/publications\/search/,
      );
    }

    // A state file from another server: both URLs are named, neither with its password.
    await writeFile(out, '');
    await writeFile(
      statePath(out),
      JSON.stringify({
        version: 1,
        url: 'http://old:old-pw@127.0.0.1:1',
        since: null,
        ranges: [{ from: 1, end: 101, next: 1 }],
        bytes: 0,
        documents: 0,
      }),
    );
    const other = await cli(
      'export',
      '--out',
      out,
      '--url',
      'http://new:new-pw@127.0.0.1:2',
      '--token',
      't',
    ).then(
      () => {
        throw new Error('export should fail');
      },
      (error: { code: number; stderr: string }) => error,
    );
    expect(other.stderr).toBe(
      `broadsheet: export: ${statePath(out)} is an export from http://[REDACTED]@127.0.0.1:1, not http://[REDACTED]@127.0.0.1:2\n`,
    );

    // A stopped export records the server without the password (the state is a file beside the export).
    const stopped = path.join(dir, 'credentials-stopped.ndjson');
    const stop = new AbortController();
    const first = await runExport({
      url: app.url.replace('http://', 'http://operator:s3cret-pw@'),
      token,
      out: stopped,
      parallel: 1,
      signal: stop.signal,
      onProgress: ({ chunksDone }) => {
        if (chunksDone >= 1) stop.abort();
      },
    });
    expect(first.complete).toBe(false);
    expect(await readFile(statePath(stopped), 'utf8')).not.toContain('s3cret-pw');
    const { stdout } = await cli(
      'export',
      '--out',
      stopped,
      '--url',
      app.url.replace('http://', 'http://operator:s3cret-pw@'),
      '--token',
      token,
    );
    expect(JSON.parse(stdout)).toMatchObject({ documents: published.length, resumed: true, complete: true });
  });

  it('when --url has a query (a token in it, say), then it is refused naming the URL without the token', async () => {
    // The query was glued in front of the API's path (…?access_token=…/api/2026-03/), so every request went
    // to the wrong path, and the failure printed the token.
    const failed = await cli(
      'export',
      '--out',
      path.join(dir, 'query.ndjson'),
      '--url',
      `${app.url}/?access_token=s3cret-tk&lang=en`,
      '--token',
      token,
    ).then(
      () => {
        throw new Error('export should fail');
      },
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `broadsheet: export: --url ${app.url}/?access_token=[REDACTED]&lang=en has a query or fragment; give the server's URL (${app.url})\n`,
    );
  });

  it('when the export fails after writing, then it says a rerun resumes; when it fails before, it does not', async () => {
    const out = path.join(dir, 'fails-midway.ndjson');
    // Forwards the two boundary requests and the first chunk, then answers every request with a 401.
    let forwarded = 0;
    const proxy = createServer((req, res) => {
      if (forwarded >= 3) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"name":"Unauthorized"}');
        return;
      }
      forwarded += 1;
      const upstream = request(`${app.url}${req.url ?? '/'}`, { headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const midway = await cli(
        'export',
        '--out',
        out,
        '--parallel',
        '1',
        '--url',
        url,
        '--token',
        token,
      ).then(
        () => {
          throw new Error('export should fail');
        },
        (error: { code: number; stderr: string }) => error,
      );
      expect(midway.code).toBe(1);
      expect(midway.stderr).toMatch(
        new RegExp(
          `answered 401: \\{"name":"Unauthorized"\\}; what was written is kept: rerun the same command to resume \\(${statePath(out).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)\\n$`,
        ),
      );
      expect(await exists(statePath(out))).toBe(true);

      // Refused at the first request: nothing is written, nothing to resume.
      const before = await cli(
        'export',
        '--out',
        path.join(dir, 'fails-before.ndjson'),
        '--url',
        url,
        '--token',
        token,
      ).then(
        () => {
          throw new Error('export should fail');
        },
        (error: { code: number; stderr: string }) => error,
      );
      expect(before.code).toBe(1);
      expect(before.stderr).toContain('answered 401');
      expect(before.stderr).not.toContain('resume');
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});
