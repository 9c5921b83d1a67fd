/** Faults that break requirements of the analytics report API (features/analytics-report/). */
import type { FaultDefinition } from '..';

export const ANALYTICS_FAULTS = [
  {
    id: 'AN-LIM-02:no-queue',
    breaks:
      'the limiter queues nothing: a request that finds the pool busy is refused with 429 at once',
  },
] as const satisfies readonly FaultDefinition[];
