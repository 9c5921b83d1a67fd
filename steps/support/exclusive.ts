/**
 * Which scenarios may run beside others against one shared target. Against a remote target every
 * worker of a parallel run (src/engine/run.ts) uses the same tenant, so a scenario that changes
 * what the whole tenant or system sees runs alone: no other starts while it runs, and it starts
 * only when none is running (cucumber's setParallelCanAssign, steps/hooks.ts). On embedded targets
 * each worker has a platform of its own and the rule costs only a little waiting.
 *
 * Alone:
 * - `@capability-tenant-limits`: the tenant profile's device limit (a device created beside it
 *   would count);
 * - `@capability-jwt-settings` and every step about a token lifetime
 *   (steps/token-lifetimes.steps.ts shortens the system's JWT lifetimes through the system
 *   administrator: every login beside it would get seconds-long tokens);
 * - `@robustness`: abuse of the target, which slows or refuses the well-behaved clients of other
 *   scenarios, and whose verdicts rest on the target's behaviour under that abuse alone;
 * - every feature outside the four platform interfaces (analytics pools and rate limiters, the REST
 *   connector's one gateway process): shared state of their own, not yet sorted scenario by
 *   scenario.
 */
import type { Pickle } from '@cucumber/messages';

/**
 * Feature folders whose scenarios touch only the entities they create (or say so by the tags
 * below).
 */
const PER_ENTITY_FOLDERS = ['admin-auth', 'http-device-api', 'mqtt-device-api', 'mqtt-gateway-api'];

const ALONE_TAGS = new Set([
  '@capability-tenant-limits',
  '@capability-jwt-settings',
  '@robustness',
]);

/** Step texts of steps that change a system-wide setting (see the list above). */
const ALONE_STEPS = /token lifetime/i;

/** Whether the scenario must run with no other scenario of the run beside it. */
export function runsAlone(pickle: Pick<Pickle, 'uri' | 'tags' | 'steps'>): boolean {
  const folder = pickle.uri.replace(/\\/g, '/').match(/features\/([^/]+)\//)?.[1];
  if (!folder || !PER_ENTITY_FOLDERS.includes(folder)) return true;
  if (pickle.tags.some((tag) => ALONE_TAGS.has(tag.name))) return true;
  return pickle.steps.some((step) => ALONE_STEPS.test(step.text));
}

/**
 * cucumber's setParallelCanAssign rule: one scenario that runs alone, or any that do not while none
 * does.
 */
export function canRunBeside(pickle: Pickle, running: readonly Pickle[]): boolean {
  if (runsAlone(pickle)) return running.length === 0;
  return !running.some(runsAlone);
}
