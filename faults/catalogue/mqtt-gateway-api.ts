/** Faults that break requirements of the mqtt-gateway-api interface (features/mqtt-gateway-api/). */
import type { FaultDefinition } from '..';

export const GATEWAY_FAULTS = [] as const satisfies readonly FaultDefinition[];
