import { JsonSkimmer, MalformedJsonError, rawHitsSteps, readRawHits } from '../../src/search/raw-hits';

const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

/** What a client would read from each hit's body span. */
const bodies = (json: unknown) => {
  const raw = readRawHits(bytes(json));
  return raw.hits.map((hit) =>
    hit.body ? (JSON.parse(raw.bytes.toString('utf8', hit.body.start, hit.body.end)) as unknown) : undefined,
  );
};

describe('readRawHits', () => {
  it('when hits carry bodies, then each body span holds exactly that body', () => {
    const body1 = { systemdata: { documentId: 1 }, content: [{ id: 'p', content: { text: 'a' } }] };
    const body2 = { metadata: { title: 'b', tags: [], nested: { deep: [[1, 2], { x: null }] } } };
    expect(bodies({ hits: { hits: [{ _source: { body: body1 } }, { _source: { body: body2 } }] } })).toEqual([
      body1,
      body2,
    ]);
  });

  it('when strings hold quotes, backslashes, brackets and non-ASCII text, then spans still end in the right place', () => {
    const awkward = {
      text: 'He said "}]{[" \\ and \\" then \\\\" — Zürich 東京 🎉 \u0000 \n end',
      'key with "quotes" }': ['\\', '\\\\', '"', '}', ']'],
    };
    expect(
      bodies({ hits: { hits: [{ _source: { body: awkward } }, { _source: { body: { after: true } } }] } }),
    ).toEqual([awkward, { after: true }]);
  });

  it('when the JSON has whitespace between tokens, then it reads the same', () => {
    const json = JSON.stringify(
      {
        hits: {
          total: { value: 7, relation: 'eq' },
          hits: [{ _source: { body: { a: [1, 2] } }, sort: [5, 'x'] }],
        },
      },
      null,
      2,
    );
    const raw = readRawHits(bytes(json));
    expect(raw.total).toBe(7);
    expect(raw.lastSort).toEqual([5, 'x']);
    expect(JSON.parse(raw.bytes.toString('utf8', raw.hits[0]!.body!.start, raw.hits[0]!.body!.end))).toEqual({
      a: [1, 2],
    });
  });

  it('when hits have sort values, then the last hit’s are returned', () => {
    const raw = readRawHits(
      bytes({
        hits: {
          hits: [
            { _source: {}, sort: [1, 'a'] },
            { _source: {}, sort: [2.5, null, 'b'] },
          ],
        },
      }),
    );
    expect(raw.lastSort).toEqual([2.5, null, 'b']);
  });

  it('when total is a plain number, a {value} object or absent, then total follows', () => {
    expect(readRawHits(bytes({ hits: { total: 3, hits: [] } })).total).toBe(3);
    expect(readRawHits(bytes({ hits: { total: { value: 4, relation: 'gte' }, hits: [] } })).total).toBe(4);
    expect(readRawHits(bytes({ hits: { hits: [] } })).total).toBeUndefined();
  });

  it('when nothing matched and filter_path dropped hits (or everything), then there are no hits', () => {
    expect(readRawHits(bytes({ hits: { total: { value: 0 } } })).hits).toEqual([]);
    expect(readRawHits(bytes({})).hits).toEqual([]);
  });

  it('when a hit has no body, or a null body, then its body is undefined and its source is still there', () => {
    const raw = readRawHits(
      bytes({ hits: { hits: [{ _source: { documentId: 5, projectId: 1 } }, { _source: { body: null } }] } }),
    );
    expect(raw.hits.map((hit) => hit.body)).toEqual([undefined, undefined]);
    const source = raw.hits[0]!.source!;
    expect(JSON.parse(raw.bytes.toString('utf8', source.start, source.end))).toEqual({
      documentId: 5,
      projectId: 1,
    });
  });

  it('when the envelope has other keys (took, _shards, _id, _score), then they are skipped', () => {
    expect(
      bodies({
        took: 3,
        timed_out: false,
        _shards: { total: 1, failed: 0 },
        hits: {
          max_score: null,
          hits: [{ _index: 'i', _id: '1', _score: 1.5, _source: { other: 'x', body: { a: 1 } } }],
        },
      }),
    ).toEqual([{ a: 1 }]);
  });

  it.each([
    ['{"hits":{"hits":[{"_source":{"body":{"a":1}}]}}', 'a missing brace'],
    ['{"hits":{"hits":[{"_source":{"body":"unterminated}}]}}', 'an unterminated string'],
    ['{"hits" {"hits":[]}}', 'a missing colon'],
    ['{"hits":{"hits":[1 2]}}', 'a missing comma'],
    ['', 'nothing at all'],
  ])('when the JSON is malformed (%s: %s), then it throws MalformedJsonError', (json) => {
    expect(() => readRawHits(bytes(json))).toThrow(MalformedJsonError);
  });
});

describe('readRawHits over the chunks a response arrived in', () => {
  const response = JSON.stringify(
    {
      took: 2,
      hits: {
        total: { value: 3, relation: 'eq' },
        hits: [
          {
            _index: 'i',
            _id: '1:7',
            _version: 3,
            _source: { body: { t: 'a "quoted" \\ }] Zürich 東京', n: [1, 2.5] } },
            sort: [1, 'x'],
          },
          {
            _index: 'i',
            _id: '1:8',
            _version: 1,
            _source: { body: { content: [{ conditions: { brands: ['b'] } }] } },
            sort: [2, 'y'],
          },
          {
            _index: 'i',
            _id: '1:9',
            _version: 12,
            _source: { body: null, documentId: 9 },
            sort: [3, 'z\\"'],
          },
        ],
      },
    },
    null,
    1,
  );
  const whole = readRawHits(Buffer.from(response), 'conditions');
  const read = (raw: ReturnType<typeof readRawHits>) => ({
    total: raw.total,
    lastSort: raw.lastSort,
    hits: raw.hits.map((hit) => ({
      index: hit.index && raw.bytes.toString('latin1', hit.index.start, hit.index.end),
      id: hit.id && raw.bytes.toString('latin1', hit.id.start, hit.id.end),
      version: hit.version,
      source: hit.source && raw.bytes.toString('utf8', hit.source.start, hit.source.end),
      body: hit.body && raw.bytes.subarray(hit.body.start, hit.body.end).toString('utf8'),
      sort: hit.sort && raw.bytes.toString('utf8', hit.sort.start, hit.sort.end),
      bodyHasKey: hit.bodyHasKey,
    })),
  });

  it('when the bytes are cut anywhere, into chunks of any size, then it reads the same as from one buffer', () => {
    const expected = read(whole);
    expect(expected.hits.map((hit) => hit.bodyHasKey)).toEqual([false, true, false]);
    expect(expected.hits.map((hit) => JSON.parse(hit.sort!) as unknown)).toEqual([
      [1, 'x'],
      [2, 'y'],
      [3, 'z\\"'],
    ]);
    const bytes = Buffer.from(response);
    for (let size = 1; size <= 64; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)));
      expect(read(readRawHits(chunks, 'conditions'))).toEqual(expected);
    }
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
      expect(read(readRawHits(chunks, 'conditions'))).toEqual(expected);
    }
  });

  it('when a chunked response is malformed or cut short, then it throws MalformedJsonError', () => {
    const bytes = Buffer.from(response);
    const cutShort = bytes.subarray(0, bytes.length - 3);
    expect(() => readRawHits([cutShort.subarray(0, 100), cutShort.subarray(100)])).toThrow(
      MalformedJsonError,
    );
    expect(() => readRawHits([])).toThrow(MalformedJsonError);
  });
});

describe('readRawHits with a body key to look for', () => {
  const flags = (bodiesJson: unknown[]) =>
    readRawHits(
      bytes({ hits: { hits: bodiesJson.map((body) => ({ _source: { body } })) } }),
      'conditions',
    ).hits.map((hit) => hit.bodyHasKey);

  it('when a body has the key at any depth, then that hit says so; the others do not', () => {
    expect(
      flags([
        { content: [{ id: 'a', containers: { x: [{ id: 'b', conditions: { brands: ['x'] } }] } }] },
        { content: [{ id: 'c' }] },
        { conditions: null },
      ]),
    ).toEqual([true, false, true]);
  });

  it('when the word is only a value or inside text, then it is not a key', () => {
    expect(
      flags([
        { title: 'conditions', text: 'the "conditions": apply', tags: ['conditions'] },
        { 'conditions-x': 1, xconditions: 2 },
      ]),
    ).toEqual([false, false]);
  });

  it('when whitespace sits between the key and its colon, then it is still found', () => {
    const json = '{"hits":{"hits":[{"_source":{"body":{"content":[{"conditions" : {}}]}}}]}}';
    expect(readRawHits(Buffer.from(json), 'conditions').hits[0]!.bodyHasKey).toBe(true);
  });
});

describe('JsonSkimmer.skipValue', () => {
  it('when escapes sit anywhere in strings of any length (short ones are scanned differently), then the span is right', () => {
    for (let length = 0; length <= 80; length++) {
      for (const escape of ['\\"', '\\\\', '\\n']) {
        for (let at = 0; at <= length; at++) {
          const text = `${'a'.repeat(at)}${escape}${'b'.repeat(length - at)}`;
          const json = `["${text}","next"]`;
          const skimmer = new JsonSkimmer(Buffer.from(json));
          const span = skimmer.skipValue();
          expect(span.end).toBe(json.length);
          expect(JSON.parse(json)).toEqual([JSON.parse(`"${text}"`), 'next']);
        }
      }
    }
  });

  it.each([
    ['"text"', '"text"'],
    ['-12.5e3,', '-12.5e3'],
    ['true}', 'true'],
    ['null]', 'null'],
    ['  {"a":[1,{"b":"}"}]} tail', '{"a":[1,{"b":"}"}]}'],
    ['"ends with backslash \\\\"', '"ends with backslash \\\\"'],
  ])('when the value is %s, then it spans %s', (json, expected) => {
    const skimmer = new JsonSkimmer(bytes(json));
    const span = skimmer.skipValue();
    expect(skimmer.bytes.toString('utf8', span.start, span.end)).toBe(expected);
    expect(skimmer.position).toBe(span.end);
  });
});

describe('rawHitsSteps', () => {
  const response = bytes({
    took: 1,
    hits: {
      total: { value: 3, relation: 'eq' },
      hits: [1, 2, 3].map((n) => ({
        _index: 'i',
        _id: `1:${n}`,
        _version: n,
        _source: { body: { n, text: 'x'.repeat(n * 1500), conditions: n === 2 ? {} : undefined } },
        sort: [n],
      })),
    },
  });

  it('when it is asked to pause after every hit, then it stops once per hit and reads what readRawHits reads', () => {
    const works: number[] = [];
    const steps = rawHitsSteps(response, 'conditions', (work = 1) => {
      works.push(work);
      return true;
    });
    let stops = 0;
    let step = steps.next();
    while (step.done !== true) {
      stops++;
      step = steps.next();
    }
    expect(stops).toBe(3);
    // Each hit's work is 1 plus its whole kilobytes (1.5, 3.1 and 4.6 kB): the clock is read sooner for large ones.
    expect(works).toEqual([2, 4, 5]);
    const { bytes: stepped, ...rest } = step.value;
    const { bytes: read, ...expected } = readRawHits(response, 'conditions');
    expect(rest).toEqual(expected);
    expect(rest.hits.map((hit) => hit.bodyHasKey)).toEqual([false, true, false]);
    expect(stepped.length).toBe(read.length);
  });

  it('when the response is malformed, then the steps throw as readRawHits does', () => {
    const broken = bytes('{"hits":{"hits":[{"_source":{"body":{"a":1}}},{"_source":');
    expect(() => readRawHits(broken)).toThrow(MalformedJsonError);
    const steps = rawHitsSteps(broken, undefined, () => true);
    expect(() => {
      while (steps.next().done !== true);
    }).toThrow(MalformedJsonError);
  });
});
