import {
  applyComponentConditions,
  nextConditionChange,
  type ConditionContext,
} from '../../src/domain/component-conditions';
import type { Content } from '../../src/domain/content';

const at = (iso: string) => new Date(iso).getTime();

const timed = (id: string, dateTime: Record<string, string>, containers?: Content): Content[number] => ({
  id,
  component: 'paragraph',
  content: {},
  conditions: { dateTime },
  ...(containers ? { containers: { children: containers } } : {}),
});

const visible = (content: Content, when: number) =>
  applyComponentConditions(content, { dateTime: new Date(when) } satisfies ConditionContext).map((c) => c.id);

describe('nextConditionChange: until when conditions applied now read the same', () => {
  const now = at('2026-01-01T12:00:00Z');

  it('when no component has a dateTime condition, then nothing ever changes', () => {
    expect(nextConditionChange([{ id: 'a', component: 'paragraph', content: {} }], now)).toBeUndefined();
  });

  it('when bounds lie ahead, then the nearest is the boundary, gte/lt at the limit and gt/lte a ms after', () => {
    const content = [
      timed('a', { gte: '2026-01-01T13:00:00Z' }),
      timed('b', { lt: '2026-01-01T12:30:00Z' }),
      timed('c', { gt: '2026-01-01T12:10:00Z' }),
    ];
    expect(nextConditionChange(content, now)).toBe(at('2026-01-01T12:10:00Z') + 1);
    expect(nextConditionChange([timed('d', { lte: '2026-01-01T12:05:00Z' })], now)).toBe(
      at('2026-01-01T12:05:00Z') + 1,
    );
  });

  it('when every bound has passed, then nothing changes any more', () => {
    expect(
      nextConditionChange([timed('a', { gte: '2025-01-01T00:00:00Z', lt: '2026-01-01T11:00:00Z' })], now),
    ).toBeUndefined();
  });

  it('when the bound sits inside a container, then it counts too', () => {
    const content = [
      {
        id: 'box',
        component: 'box',
        content: {},
        containers: { children: [timed('x', { gte: '2026-01-02T00:00:00Z' })] },
      },
    ];
    expect(nextConditionChange(content as Content, now)).toBe(at('2026-01-02T00:00:00Z'));
  });

  it('when a bound cannot be read, then it never flips (it fails closed for good)', () => {
    expect(nextConditionChange([timed('a', { gte: 'tomorrow' })], now)).toBeUndefined();
  });

  it('the visible components are the same just before the boundary and differ at it', () => {
    const content = [
      timed('early', { lt: '2026-01-01T12:00:01.500Z' }),
      timed('late', { gt: '2026-01-01T12:00:03Z' }),
      timed('window', { gte: '2026-01-01T12:00:02Z', lte: '2026-01-01T12:00:04Z' }),
    ];
    let when = now;
    for (let steps = 0; steps < 6; steps++) {
      const boundary = nextConditionChange(content, when);
      if (boundary === undefined) break;
      expect(visible(content, boundary - 1)).toEqual(visible(content, when));
      expect(visible(content, boundary)).not.toEqual(visible(content, when));
      when = boundary;
    }
    expect(nextConditionChange(content, when)).toBeUndefined();
  });
});
