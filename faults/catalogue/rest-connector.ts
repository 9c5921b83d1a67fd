/** Faults that break requirements of the rest-connector interface (features/rest-connector/). */
import type { FaultDefinition } from '..';

export const REST_CONNECTOR_FAULTS = [
  {
    id: 'RC-AUPD-02:method-ignored',
    breaks: 'attribute updates are always sent with POST, whatever httpMethod says',
  },
] as const satisfies readonly FaultDefinition[];
