/**
 * State of the scenario whose step or hook is running, found through cucumber's own async context
 * (the world its `world` proxy resolves, runtime/scope; the version is pinned in package.json). A
 * worker may run several scenarios at once (src/engine/staggered-workers.ts,
 * IOTC_SCENARIOS_PER_WORKER): what a shared driver records, or a socket of a scenario tells, must
 * reach that scenario, not a module's one "current" scenario. A callback runs in the context of
 * the step that started its work, so it finds that step's scenario.
 */
import { worldProxy } from '@cucumber/cucumber/lib/runtime/scope/index';

/**
 * The running scenario's value under `key` (made by `create` the first time); undefined outside a
 * scenario (BeforeAll, AfterAll, work they started).
 */
export function scenarioState<T>(key: symbol, create: () => T): T | undefined {
  const world = worldProxy as unknown as Record<symbol, unknown>;
  try {
    if (!(key in world)) world[key] = create();
    return world[key] as T;
  } catch {
    return undefined; // cucumber's proxy throws outside a step or a case-level hook
  }
}
