/** The analytics service when the platform cannot be reached: 502, before any report is built. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startAnalytics } from '../../simulators/analytics';
import { makeJwt, postReport } from './support';

describe('analytics without a platform', () => {
  it('answers 502 when the platform cannot be reached to check the JWT', async () => {
    const analytics = await startAnalytics({
      platformUrl: 'http://127.0.0.1:9',
      platformTimeoutMs: 1000,
    });
    try {
      const answer = await postReport(
        analytics.reportUrl,
        { viewConfigId: analytics.demoViewId },
        { jwt: makeJwt(Math.floor(Date.now() / 1000) + 60) },
      );
      assert.equal(answer.status, 502, answer.text);
      assert.match(answer.json.message, /platform unreachable/);
    } finally {
      await analytics.close();
    }
  });
});
