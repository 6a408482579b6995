import { DecodeBudget, decodeBudgetPixels, RequestAbandonedError } from '../../src/media/decode-budget';

/** A decode that runs until `finish` is called: what is in the budget meanwhile can be looked at. */
function heldDecode() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: () => done, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('decodeBudgetPixels', () => {
  it('when the pixel limit is the 50 MP default, then two of the largest images fit (100 MP)', () => {
    expect(decodeBudgetPixels(50_000_000)).toBe(100_000_000);
  });

  it('when the limit is small, then still two of the largest images, not more', () => {
    expect(decodeBudgetPixels(5000)).toBe(10_000);
  });

  it('when the limit is raised past 50 MP, then no more than 100 MP at once, or one image alone past that', () => {
    expect(decodeBudgetPixels(80_000_000)).toBe(100_000_000);
    expect(decodeBudgetPixels(268_402_689)).toBe(268_402_689);
  });
});

describe('DecodeBudget', () => {
  it('when small images come, then they decode side by side while their pixels fit', async () => {
    const budget = new DecodeBudget(100);
    const decodes = [heldDecode(), heldDecode(), heldDecode()];
    const runs = decodes.map((decode) => budget.run(30, decode.work));
    await tick();
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 90, waiting: 0 });
    for (const decode of decodes) decode.finish();
    await Promise.all(runs);
    expect(budget.inUse).toBe(0);
  });

  it('when the pixels do not fit, then the image waits for those being decoded, first come first served', async () => {
    const budget = new DecodeBudget(100);
    const big = heldDecode();
    const order: string[] = [];
    const first = budget.run(80, big.work);
    const second = budget.run(60, () => Promise.resolve(void order.push('second')));
    // Fits beside the first, but the second came before it: no overtaking, so the second is not starved.
    const third = budget.run(10, () => Promise.resolve(void order.push('third')));
    await tick();
    expect({ inUse: budget.inUse, waiting: budget.waiting, order }).toEqual({
      inUse: 80,
      waiting: 2,
      order: [],
    });
    big.finish();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['second', 'third']);
    expect(budget.inUse).toBe(0);
  });

  it('when an image is larger than the whole budget, then it decodes alone', async () => {
    const budget = new DecodeBudget(100);
    const small = heldDecode();
    const running = budget.run(10, small.work);
    let ran = false;
    const huge = budget.run(500, () => {
      ran = true;
      expect(budget.inUse).toBe(100);
      return Promise.resolve();
    });
    await tick();
    expect(ran).toBe(false);
    small.finish();
    await Promise.all([running, huge]);
    expect(ran).toBe(true);
  });

  it('when a waiting check is abandoned, then it leaves the queue without running, and those behind it move up', async () => {
    const budget = new DecodeBudget(100);
    const held = heldDecode();
    const holding = budget.run(70, held.work);
    const leaving = new AbortController();
    let abandonedRan = false;
    const abandoned = budget.run(
      50,
      () => {
        abandonedRan = true;
        return Promise.resolve();
      },
      leaving.signal,
    );
    const behind = budget.run(20, () => Promise.resolve('behind ran'));
    await tick();
    expect(budget.waiting).toBe(2);
    leaving.abort();
    await expect(abandoned).rejects.toBeInstanceOf(RequestAbandonedError);
    // The one behind it fits beside the held decode: it no longer waits for a check nobody wants.
    await expect(behind).resolves.toBe('behind ran');
    expect({ waiting: budget.waiting, inUse: budget.inUse, abandonedRan }).toEqual({
      waiting: 0,
      inUse: 70,
      abandonedRan: false,
    });
    held.finish();
    await holding;
    expect(budget.inUse).toBe(0);
  });

  it('when the request was gone before the check asked, then it is refused at once and takes nothing', async () => {
    const budget = new DecodeBudget(100);
    await expect(budget.run(10, () => Promise.resolve('ran'), AbortSignal.abort())).rejects.toBeInstanceOf(
      RequestAbandonedError,
    );
    expect(budget.inUse).toBe(0);
  });

  it('when a decode fails, then its pixels are given back', async () => {
    const budget = new DecodeBudget(100);
    await expect(budget.run(100, () => Promise.reject(new Error('corrupt')))).rejects.toThrow('corrupt');
    expect(budget.inUse).toBe(0);
    await expect(budget.run(100, () => Promise.resolve('next'))).resolves.toBe('next');
  });
});
