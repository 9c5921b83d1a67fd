/** Faults that break requirements of the rest-connector interface (features/rest-connector/). */
import type { FaultDefinition } from '..';

export const REST_CONNECTOR_FAULTS = [] as const satisfies readonly FaultDefinition[];
