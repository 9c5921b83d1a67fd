/** Faults that break requirements of the http-device-api interface (features/http-device-api/). */
import type { FaultDefinition } from '..';

export const HTTP_FAULTS = [] as const satisfies readonly FaultDefinition[];
