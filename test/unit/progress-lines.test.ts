import { progressLines } from '../../src/cli/progress-lines';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, write: (text: string) => written.push(text) };
}

describe('progressLines', () => {
  it('when stderr is a terminal, then the count is one line redrawn in place, closed at the end', () => {
    const out = stream(true);
    const progress = progressLines(out, '', 46);
    progress.update(20);
    progress.update(46);
    progress.finish();
    expect(out.written.join('')).toBe('\r20/46\r46/46\n');
  });

  it('when stderr is no terminal (a log file), then it writes plain lines at each tenth and no carriage return', () => {
    const out = stream(false);
    const progress = progressLines(out, 'import: ', 1000, () => 0);
    for (let done = 1; done <= 1000; done += 1) progress.update(done);
    progress.finish();
    const text = out.written.join('');
    expect(text).not.toContain('\r');
    expect(text.split('\n').filter(Boolean)).toEqual(
      [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000].map((n) => `import: ${n}/1000`),
    );
  });

  it('when a slow count crosses no tenth, then a plain line is still said every ten seconds', () => {
    const out = stream(false);
    let clock = 0;
    const progress = progressLines(out, '', 1_000_000, () => clock);
    progress.update(1);
    clock = 9_999;
    progress.update(2);
    clock = 10_000;
    progress.update(3);
    expect(out.written).toEqual(['3/1000000\n']);
  });

  it('when a run stops between lines, then the last count is said at the end, once', () => {
    const out = stream(false);
    const progress = progressLines(out, '', 100, () => 0);
    progress.update(10);
    progress.update(15);
    progress.finish();
    expect(out.written).toEqual(['10/100\n', '15/100\n']);
    const done = stream(false);
    const whole = progressLines(done, '', 100, () => 0);
    whole.update(100);
    whole.finish();
    expect(done.written).toEqual(['100/100\n']);
  });
});

describe('progressLines with a total that grows', () => {
  it('when the total changes midway (documents published meanwhile), then the lines say the new total', () => {
    const out = stream(false);
    const progress = progressLines(out, 'rebuild: ', 10, () => 0);
    progress.update(5);
    progress.update(12, 20);
    progress.finish();
    expect(out.written).toEqual(['rebuild: 5/10\n', 'rebuild: 12/20\n']);
  });
});
