/**
 * tsField datetimes: 10.11.24 read three ways (docs/reference/interfaces.md), ISO strings, zones,
 * rejects.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDatetime } from '../../simulators/connector/datetime';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('tsField datetimes', () => {
  it('reads 10.11.24 as 11 Oct 2024, 10 Nov 2024 with dayfirst, 24 Nov 2010 with yearfirst', () => {
    assert.equal(
      iso(parseDatetime('10.11.24', { dayfirst: false, yearfirst: false })),
      '2024-10-11T00:00:00.000Z',
    );
    assert.equal(
      iso(parseDatetime('10.11.24', { dayfirst: true, yearfirst: false })),
      '2024-11-10T00:00:00.000Z',
    );
    assert.equal(
      iso(parseDatetime('10.11.24', { dayfirst: false, yearfirst: true })),
      '2010-11-24T00:00:00.000Z',
    );
  });

  it('reads times, fractions and zones', () => {
    assert.equal(
      parseDatetime('10.11.25 10:35:12.123', { dayfirst: true, yearfirst: false }),
      1762770912123,
    );
    assert.equal(
      parseDatetime('2025-10-20T11:53:37.637Z', { dayfirst: false, yearfirst: false }),
      1760961217637,
    );
    assert.equal(
      iso(parseDatetime('2024-11-10 12:00:00+02:00', { dayfirst: false, yearfirst: false })),
      '2024-11-10T10:00:00.000Z',
    );
  });

  it('answers undefined for what is not a date', () => {
    for (const text of ['yesterday', '31.02.24', '13.13.24', '1700000000000', ''])
      assert.equal(parseDatetime(text, { dayfirst: true, yearfirst: false }), undefined, text);
  });
});
