import { finishSteps } from '../../src/domain/steps';
import { weakEtag } from '../../src/http/etag';
import { jsonSteps } from '../../src/http/json-slices';

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
