import type { Content } from '../../src/domain/content';
import { renderHtml, renderHtmlSteps } from '../../src/domain/html-render';
import { renderRenditions, renditionSteps } from '../../src/domain/renditions';
import { RequestAbandonedError } from '../../src/media/decode-budget';
import { runInSlices } from '../../src/time-slices';

describe('runInSlices', () => {
  const values: Record<string, string> = {};
  for (let index = 0; index < 5_000; index += 1) values[`d${index}`] = `<p>${index}`;
  const content: Content = [{ id: 'many', component: 'unknown', content: values }];

  it('when a large content renders in slices, then other work runs in between and the answer is the same', async () => {
    const options = { renderDirectiveInfo: true };
    let ran = 0;
    const other = setInterval(() => (ran += 1), 0);
    try {
      const html = await runInSlices((pause) => renderHtmlSteps(content, undefined, options, pause));
      const renditions = await runInSlices((pause) => renditionSteps(content, ['web', 'html'], pause));
      // 5,000 sanitize-html calls take far longer than one 10 ms slice: the interval ran in between.
      expect(ran).toBeGreaterThan(2);
      expect(html).toBe(renderHtml(content, undefined, options));
      expect(renditions).toEqual(renderRenditions(content, ['web', 'html']));
    } finally {
      clearInterval(other);
    }
  });

  it('when the steps end at once, then their answer comes back without a pause', async () => {
    await expect(
      runInSlices((pause) => renderHtmlSteps([], undefined, { renderDirectiveInfo: false }, pause)),
    ).resolves.toBe('');
  });

  it('when the client went away before the render began or while it runs, then no further step runs and it rejects as abandoned', async () => {
    let steps = 0;
    const counted = function* (pause: (work?: number) => boolean) {
      for (;;) {
        steps += 1;
        if (pause(32)) yield;
      }
    };
    await expect(runInSlices(counted, AbortSignal.abort())).rejects.toBeInstanceOf(RequestAbandonedError);
    expect(steps).toBe(0);

    const client = new AbortController();
    const running = runInSlices(counted, client.signal);
    setTimeout(() => client.abort(), 30);
    await expect(running).rejects.toBeInstanceOf(RequestAbandonedError);
    const stopped = steps;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(steps).toBe(stopped);
  });
});
