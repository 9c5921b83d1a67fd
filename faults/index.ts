/**
 * Planted faults: named switches that break exactly one behaviour of the reference targets on
 * purpose, so the kill matrix (`npm run faults`) can prove that the scenarios tagged with a
 * requirement see it broken.
 *
 * A fault is `<requirement id>:<short name>` and is declared in `catalogue/<interface>.ts`. The
 * reference asks `faultActive(id)` where the behaviour lives; every fault is off unless
 * `IOTC_FAULTS` (comma-separated ids) or `setActiveFaults` turns it on, so with none on the
 * reference is unchanged. Quirks modes reproduce a real implementation's differences; faults are
 * defects nobody ships.
 */
import { FAULT_CATALOGUE, type FaultId } from './catalogue';
import { IotcError } from '../lib/errors';

export type { FaultId } from './catalogue';
export { FAULT_CATALOGUE } from './catalogue';

/** The requirement a fault breaks: its id up to the first colon. */
export function faultRequirement(id: string): string {
  return id.slice(0, id.indexOf(':'));
}

/** IOTC_FAULTS names a fault the catalogue (faults/catalogue/) does not have. */
export class UnknownFaultError extends IotcError {
  readonly code = 'IOTC_UNKNOWN_FAULT';
  constructor(readonly ids: string[]) {
    super(`unknown fault ${ids.join(', ')}: the catalogue is faults/catalogue/`);
  }
}

const known = new Set<string>(FAULT_CATALOGUE.map((fault) => fault.id));
let active: ReadonlySet<string> = parse(process.env.IOTC_FAULTS ?? '');

function parse(list: string): ReadonlySet<string> {
  const ids = list
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw new UnknownFaultError(unknown);
  return new Set(ids);
}

/**
 * Whether the reference must misbehave as fault `id` says. A set lookup: cheap enough for hot
 * paths.
 */
export function faultActive(id: FaultId): boolean {
  return active.size > 0 && active.has(id);
}

/** Whether any fault is on at all. */
export function anyFaultActive(): boolean {
  return active.size > 0;
}

/**
 * Turns exactly these faults on (the kill matrix, between runs in one process); [] turns all off.
 */
export function setActiveFaults(ids: readonly string[]): void {
  active = parse(ids.join(','));
}

export function activeFaults(): string[] {
  return [...active];
}
