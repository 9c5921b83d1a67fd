/**
 * The modes of `iotc simulate --mode`: the specification, or a real platform's known deviations
 * (simulators/platform/quirks.ts). A file of its own so that the command line's option definitions
 * (main.ts) do not load simulate.ts and with it the whole reference platform for every command.
 */
import { QUIRKS_MODES, type QuirksMode } from '../../simulators/platform/quirks';

export const SIMULATE_MODES = ['spec', ...(Object.keys(QUIRKS_MODES) as QuirksMode[])] as const;
export type SimulateMode = 'spec' | QuirksMode;
