/** Faults that break requirements of the key-value-data interface (features/key-value-data/). */
import type { FaultDefinition } from '..';

export const KV_FAULTS = [] as const satisfies readonly FaultDefinition[];
