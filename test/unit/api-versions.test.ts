import { ApiVersion, ALL_VERSION_LABELS } from '../../src/domain/api-versions';
import { PROTOTYPE_NAMES } from '../helpers/hostile-input';

describe('ApiVersion.parse', () => {
  it('when a known label or alias is given, then it parses, aliases behaving as 2025-03', () => {
    for (const label of ALL_VERSION_LABELS) expect(ApiVersion.parse(label)?.label).toBe(label);
    expect(ApiVersion.parse('v1')?.effective).toBe('2025-03');
    expect(ApiVersion.parse('beta')?.effective).toBe('2025-03');
    expect(ApiVersion.parse('2026-01')?.atLeast('2026-01')).toBe(true);
  });

  it('when the label is an Object.prototype name, then it is unknown', () => {
    for (const label of PROTOTYPE_NAMES) expect(ApiVersion.parse(label)).toBeUndefined();
  });

  it('when the label is unknown, then undefined', () => {
    for (const label of ['2024-01', '2025-04', 'V1', '', 'latest'])
      expect(ApiVersion.parse(label)).toBeUndefined();
  });
});
