/**
 * What the whole run shares: the target, the admin sessions, one connection pool for the device
 * drivers.
 */
import { randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import type { Target } from '../../src/target';
import type { AdminClient } from '../../src/admin-client';
import type { CleanupJournal } from '../../src/target/journal';

export interface RunContext {
  target: Target;
  /** Tenant administrator session. */
  admin: AdminClient;
  /** Customer user session, when the target profile names one (claiming). */
  customer?: AdminClient;
  deviceDispatcher: Agent;
  /**
   * Every entity is written here before it is created (staging safety; `iotc cleanup` reads it).
   */
  journal: CleanupJournal;
  /**
   * Short id of this run: part of every created name, so parallel runs and leftovers never collide.
   */
  runId: string;
}

let current: RunContext | undefined;

export function setRun(context: RunContext | undefined): void {
  current = context;
}

export function run(): RunContext {
  if (!current)
    throw new Error('the run context is not set: the BeforeAll hook did not open the target');
  return current;
}

/**
 * A new run id, or IOTC_RUN_ID when set: a configuration written for one run (iotc gateway-config
 * --run-id) names its constant devices with that run's id, and the run must use the same.
 */
export function newRunId(): string {
  const given = process.env.IOTC_RUN_ID;
  if (given !== undefined) {
    if (!/^[a-z0-9]{4,16}$/.test(given))
      throw new Error(`IOTC_RUN_ID must be 4 to 16 lowercase letters or digits, not "${given}"`);
    return given;
  }
  return randomBytes(3).toString('hex');
}
