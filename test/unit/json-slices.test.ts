import type { AddressInfo } from 'node:net';
import express from 'express';
import { finishSteps } from '../../src/domain/steps';
import { weakEtag } from '../../src/http/etag';
import { jsonSteps, sendJsonInSlices } from '../../src/http/json-slices';

const serialise = (value: unknown, pause: () => boolean = () => false) => {
  const answer = finishSteps(jsonSteps(value, pause));
  return { ...answer, text: Buffer.concat(answer.chunks).toString('utf8') };
};

describe('jsonSteps (answers serialised in slices)', () => {
  const cases: Record<string, unknown> = {
    'a list as GET document-lists/{id} answers it': {
      id: 7,
      name: 'Front "page" é 😀',
      documents: [
        { systemdata: { documentId: 1, layout: undefined }, metadata: { title: 'x\u2028y' }, content: [] },
        { content: [{ id: 'c', content: { text: 'a'.repeat(70_000), n: [1, 2.5, -0, null, true] } }] },
      ],
      createdAt: new Date(Date.UTC(2026, 0, 2)),
      updatedAt: '2026-01-02T00:00:00.000Z',
    },
    'the listing, up to 2025-11 a bare array': [
      { id: 1, documents: [] },
      { id: 2, documents: [{}] },
    ],
    'members JSON leaves out or writes null': {
      gone: undefined,
      fn: () => 1,
      [Symbol('s')]: 1,
      list: [undefined, () => 1, Symbol('t'), { toJSON: () => undefined }],
      keyed: { toJSON: (key: string) => `key:${key}` },
      deep: [[[[[[{ a: undefined, b: new Date(0) }]]]]]],
      nan: Number.NaN,
      empty: {},
      none: [],
    },
    'a value that is not walked': 'just text',
  };

  it.each(Object.entries(cases))(
    'when it serialises %s, then the bytes and ETag of JSON.stringify',
    (_, value) => {
      const whole = JSON.stringify(value);
      const answer = serialise(value);
      expect(answer.text).toBe(whole);
      expect(answer.length).toBe(Buffer.byteLength(whole));
      expect(answer.etag).toBe(weakEtag(whole));
    },
  );

  it('when the pause says stop, then it yields between members and the answer is the same', () => {
    const value = {
      documents: Array.from({ length: 50 }, (_, index) => ({ content: [{ text: `${index}` }] })),
    };
    let stops = 0;
    const steps = jsonSteps(value, () => true);
    let step = steps.next();
    while (step.done !== true) {
      stops += 1;
      step = steps.next();
    }
    expect(stops).toBeGreaterThanOrEqual(50);
    expect(Buffer.concat(step.value.chunks).toString()).toBe(JSON.stringify(value));
  });
});

describe('sendJsonInSlices', () => {
  it('when the client goes away while the answer is serialised, then the serialising stops', async () => {
    const total = 200_000;
    let serialised = 0;
    // Each item counts itself when serialised (its toJSON): how much work the answer still costs.
    const items = Array.from({ length: total }, (_, index) => ({
      toJSON: () => {
        serialised += 1;
        return { index, text: 'x'.repeat(100) };
      },
    }));
    const app = express();
    app.get('/', async (_req, res) => {
      await sendJsonInSlices(res, items);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      const client = new AbortController();
      const request = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        signal: client.signal,
      }).catch(() => undefined);
      while (serialised === 0) await sleep(1);
      client.abort();
      await request;
      // Until the process is idle: no item serialised for 300 ms. Before, the whole answer was made anyway.
      let seen = -1;
      while (seen !== serialised) {
        seen = serialised;
        await sleep(300);
      }
      expect(serialised).toBeLessThan(total / 2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
