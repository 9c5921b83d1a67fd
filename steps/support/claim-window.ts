/**
 * A claim's window across a network. A device's claim with `durationMs` opens a window on the
 * platform when the claim arrives (half a round trip after it is sent), its acknowledgement comes
 * back half a round trip later, and every customer claim that must land inside the window needs
 * another half: with a 400 ms window and a 400 ms round trip (200 ms each way) the window is over
 * before any customer claim can arrive. So against a remote target the durationMs the scenario
 * sends is stretched by three round trips (timing.ts spanOverNetwork), and the "N ms claim window"
 * steps of that device use the stretched figure: the positive control (a claim inside the window
 * succeeds) and the negative check (a claim after it fails) both follow the window the platform was
 * actually given. On loopback (no round trip measured) the body goes out unchanged, byte for byte.
 */
import type { IotcWorld } from '../world';
import { HARNESS_STARVED, Inconclusive, spanOverNetwork } from './timing';

/**
 * Round trips a claim window is stretched by: the device's claim, its acknowledgement, the
 * customer's claim.
 */
export const CLAIM_WINDOW_ROUND_TRIPS = 3;

/**
 * The claim body to send for `local`: `body` (JSON text as the scenario wrote it) with a numeric
 * `durationMs` stretched over the network; notes the stretch for `claimWindowMs`. A body that is
 * not a JSON object with a positive durationMs, or a run with no round trip, is sent as written.
 */
export function claimBodyOverNetwork(world: IotcWorld, local: string, body: string): string {
  world.claimWindowStretchMs.delete(local);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
  const claim = parsed as { durationMs?: unknown };
  if (typeof claim.durationMs !== 'number' || !(claim.durationMs > 0)) return body;
  const stretched = spanOverNetwork(
    claim.durationMs,
    world.run.target.timeouts,
    CLAIM_WINDOW_ROUND_TRIPS,
  );
  if (stretched === claim.durationMs) return body;
  world.claimWindowStretchMs.set(local, stretched - claim.durationMs);
  world.log(
    `the claim of "${local}" asks for durationMs ${stretched} instead of ${claim.durationMs}: ${CLAIM_WINDOW_ROUND_TRIPS} round trips of the network (${world.run.target.timeouts.roundTripMs} ms) added`,
  );
  return JSON.stringify({ ...claim, durationMs: stretched });
}

/**
 * The window a scenario's "N ms claim window" means for `local`: N plus the stretch its last claim
 * was sent with.
 */
export function claimWindowMs(world: IotcWorld, local: string, windowMs: number): number {
  return windowMs + (world.claimWindowStretchMs.get(local) ?? 0);
}

/**
 * The positive control of a short window that no try was shown to fall in: every customer claim
 * failed, and none was answered within the window after the device's claim was acknowledged
 * (`acknowledged`, `firstAnsweredAt`: Date.now). A registration the platform made at once then
 * ended before any try can be shown to have arrived: the harness or the target's process starved
 * between the acknowledgement and the tries (at load average 45 the embedded target's control claim
 * went out after its 400 ms window, and 28 tries answered FAILURE). INCONCLUSIVE then; a platform
 * that registers nothing still FAILs whenever a try is answered within the window.
 */
export function refuseIfNoTryFitTheWindow(tries: {
  device: string;
  windowMs: number;
  acknowledged: number;
  firstAnsweredAt: number | undefined;
}): void {
  const firstMs =
    tries.firstAnsweredAt === undefined ? undefined : tries.firstAnsweredAt - tries.acknowledged;
  if (firstMs !== undefined && firstMs <= tries.windowMs) return;
  throw new Inconclusive(
    `${HARNESS_STARVED} or the target's process was starved while the customer claimed "${tries.device}" within its ${Math.round(tries.windowMs)} ms claim window: ${firstMs === undefined ? 'no try was answered' : `the first try was answered ${Math.round(firstMs)} ms after the device's claim was acknowledged`}, so none can be shown to have arrived within the window (a busy machine)`,
  );
}
