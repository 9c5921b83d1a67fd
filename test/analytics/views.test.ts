/**
 * The saved views file: accepted shapes, refused ones with their reasons, defaults, the demo view;
 * env defaults of the limiter.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startAnalytics } from '../../simulators/analytics';
import { ViewsFileError } from '../../simulators/analytics/errors';
import { DEMO_VIEW, loadViews, parseViews } from '../../simulators/analytics/views';
import { limiterStatus } from './support';

const view = (overrides: Record<string, unknown> = {}) => ({
  id: '4fa0b1c2-7d6e-4293-8edf-4a5b6c7d8e9f',
  name: 'v',
  devices: { names: ['A'] },
  columns: [{ label: 'Device', source: { type: 'deviceName' } }],
  ...overrides,
});

describe('analytics views file', () => {
  it('fills the defaults: perTimestamp rows, no filters, the last 24 hours, 1000 values per key', () => {
    const [parsed] = parseViews(JSON.stringify({ views: [view()] }));
    assert.equal(parsed.rows, 'perTimestamp');
    assert.deepEqual(parsed.filters, {});
    assert.deepEqual(parsed.range, { lastMs: 86_400_000 });
    assert.equal(parsed.limit, 1000);
  });

  it('refuses what the schema or the view rules refuse, naming the reason', () => {
    const refused: Array<[unknown, RegExp]> = [
      [{ views: [view({ id: 'nope' })] }, /\/views\/0\/id must match format "uuid"/],
      [{ views: [view({ columns: [] })] }, /columns/],
      [
        { views: [view({ columns: [{ label: 'x', source: { type: 'attribute', key: 'k' } }] })] },
        /source/,
      ],
      [{ views: [view({ devices: { names: ['A'], nameContains: 'A' } })] }, /devices/],
      [{ views: [view({ range: { startTs: 5, endTs: 1 } })] }, /startTs is after range.endTs/],
      [
        {
          views: [
            view({
              columns: [
                { label: 'x', source: { type: 'date' } },
                { label: 'x', source: { type: 'deviceName' } },
              ],
            }),
          ],
        },
        /label "x" is repeated/,
      ],
      [{ views: [view({ filters: { f: { source: { type: 'date' }, values: [] } } })] }, /filters/],
      [[view()], /must be object/],
    ];
    for (const [document, reason] of refused) {
      assert.throws(
        () => parseViews(JSON.stringify(document)),
        (error: Error) => error instanceof ViewsFileError && reason.test(error.message),
        JSON.stringify(document),
      );
    }
    assert.throws(() => parseViews('{'), ViewsFileError);
  });

  it('loads the demo view with the file, refuses repeated ids and unreadable files', () => {
    const directory = mkdtempSync(join(tmpdir(), 'iotc-views-'));
    const file = join(directory, 'views.json');
    writeFileSync(file, JSON.stringify({ views: [view()] }));
    assert.deepEqual([...loadViews(file).keys()].sort(), [DEMO_VIEW.id, view().id].sort());
    writeFileSync(file, JSON.stringify({ views: [view({ id: DEMO_VIEW.id })] }));
    assert.throws(() => loadViews(file), /used twice/);
    assert.throws(() => loadViews(join(directory, 'missing.json')), /cannot read views file/);
  });

  it('takes pool size and queue capacity from the environment when the options leave them out', async () => {
    const saved = {
      pool: process.env.SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE,
      queue: process.env.SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY,
    };
    process.env.SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE = '4';
    process.env.SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY = '6';
    try {
      const fromEnv = await startAnalytics({ platformUrl: 'http://127.0.0.1:9' });
      const counters = await limiterStatus(fromEnv.limiterStatusUrl);
      await fromEnv.close();
      assert.deepEqual([counters.poolSize, counters.queueCapacity], [4, 6]);
      delete process.env.SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE;
      delete process.env.SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY;
      const defaults = await startAnalytics({ platformUrl: 'http://127.0.0.1:9', poolSize: 2 });
      const defaultCounters = await limiterStatus(defaults.limiterStatusUrl);
      await defaults.close();
      assert.deepEqual([defaultCounters.poolSize, defaultCounters.queueCapacity], [2, 10]);
      await assert.rejects(
        startAnalytics({ platformUrl: 'http://127.0.0.1:9', poolSize: 0 }),
        RangeError,
      );
    } finally {
      for (const [name, value] of [
        ['SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE', saved.pool],
        ['SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY', saved.queue],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
