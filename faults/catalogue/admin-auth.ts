/** Faults that break requirements of the admin-auth interface (features/admin-auth/). */
import type { FaultDefinition } from '..';

export const ADMIN_AUTH_FAULTS = [] as const satisfies readonly FaultDefinition[];
