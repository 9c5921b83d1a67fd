/**
 * Reading back what a load run sent: each message carries a per-device `seq` (1, 2, ...) at its own
 * timestamp, so the stored `seq` history of a device tells what was stored, lost and duplicated.
 * Shared by the mqtt-gateway and http-telemetry profiles.
 */
import type { AdminClient } from '../src/admin-client';
import type { Target } from '../src/target';
import { typedValueToString } from '../lib/kv/values';
import { mapLimited } from './gateway-fleet';

export interface SeqReadOptions {
  startTs: number;
  /** What the device sent: seqs 1..sent, the last at lastTs. */
  sent: number;
  lastTs: number;
  /** Entries the target keeps per key (historyPerKey), when it keeps only the newest. */
  retained: number;
  /** Distinct seqs the device should hold: read again until it does, or until the deadline. */
  expected: number;
  /** Date.now() after which the last read counts. */
  deadline: number;
  pollIntervalMs: number;
}

/**
 * The device's stored seqs, one per stored entry, any order. The platform may store after it
 * answered: the history is read again until it holds `expected` distinct seqs or the deadline has
 * passed.
 */
async function readStoredSeqs(
  admin: AdminClient,
  deviceId: string,
  options: SeqReadOptions,
): Promise<number[]> {
  for (;;) {
    const history = await admin.telemetryHistory(
      deviceId,
      ['seq'],
      options.startTs,
      options.lastTs + 1,
      // twice what it could keep, so duplicates show, and a margin
      Math.min(options.sent, options.retained) * 2 + 100,
    );
    const seqs = (history.get('seq') ?? []).map((entry) =>
      entry.value ? Number(typedValueToString(entry.value)) : Number.NaN,
    );
    if (new Set(seqs).size >= options.expected || Date.now() >= options.deadline) return seqs;
    await new Promise((resolveWait) => setTimeout(resolveWait, options.pollIntervalMs));
  }
}

/**
 * The next message of a device: its seq counts 1, 2, ... and its ts strictly increases (the wall
 * clock, or one past the last ts when the clock has not moved), so every message has its own stored
 * entry.
 */
export function nextSeq(device: { sent: number; lastTs: number }): number {
  const now = Date.now();
  device.lastTs = now > device.lastTs ? now : device.lastTs + 1;
  return ++device.sent;
}

/** At most `limit` items spread evenly over the list (all when it is shorter). */
function spreadSample<T>(items: readonly T[], limit: number): T[] {
  const count = Math.min(limit, items.length);
  const step = items.length / Math.max(count, 1);
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]);
}

/** What the readback of seqs counts (per device, or summed over the devices read back). */
export interface SeqTally {
  /** Sent to the devices read back. */
  sent: number;
  stored: number;
  lost: number;
  duplicated: number;
  /** Acknowledged with success but not stored: the worst kind of lost. */
  acknowledgedNotStored: number;
  /**
   * The oldest seqs of devices that sent more than the target keeps per key (historyPerKey): not
   * checked, since their absence is the target's retention, not a loss.
   */
  beyondRetention: number;
}

/**
 * Compares one device's stored seqs (one per stored entry, any order) with what it sent (seqs
 * 1..sent): stored is the distinct seqs sent, lost the seqs never stored, duplicated the entries
 * beyond one per seq. A target that keeps only the newest `retained` entries per key is checked on
 * the newest `retained` seqs; the older ones are counted as beyond retention, neither stored nor
 * lost.
 */
export function tallySeqs(
  sent: number,
  notAcknowledged: readonly number[],
  storedSeqs: readonly number[],
  retained = Number.POSITIVE_INFINITY,
): SeqTally {
  const first = Math.max(1, sent - retained + 1);
  const checked = storedSeqs.filter((seq) => Number.isInteger(seq) && seq >= first && seq <= sent);
  const distinct = new Set(checked);
  const unanswered = new Set(notAcknowledged);
  let acknowledgedNotStored = 0;
  for (let seq = first; seq <= sent; seq++)
    if (!distinct.has(seq) && !unanswered.has(seq)) acknowledgedNotStored++;
  return {
    sent,
    stored: distinct.size,
    lost: sent - first + 1 - distinct.size,
    duplicated: storedSeqs.length - new Set(storedSeqs).size,
    acknowledgedNotStored,
    beyondRetention: first - 1,
  };
}

/**
 * A device as a load run saw it: the seqs it sent (1..sent, the last at lastTs) and those without a
 * success answer.
 */
export interface SentDevice {
  sent: number;
  /** Seqs whose request or publish did not end in a success answer. */
  notSucceeded: number[];
  lastTs: number;
}

/** The readback of a fleet: the tallies of the devices read, summed. */
export interface FleetReadback extends SeqTally {
  devicesRead: number;
  devicesTotal: number;
  /** Seqs answered with an error (or never answered) and stored anyway. */
  refusedStored: number;
}

/**
 * Reads back each device's stored seqs (all, or `limit` spread over the fleet) and sums the
 * tallies. The platform may store after it answered: each device is read again until it holds every
 * seq that got a success answer, or the target's `eventually` time has passed. `idOf` finds a
 * device's id (undefined: never created, nothing stored).
 */
export async function readBackFleet<Device extends SentDevice>(
  admin: AdminClient,
  target: Pick<Target, 'timeouts' | 'historyPerKey'>,
  devices: readonly Device[],
  startTs: number,
  limit: number,
  idOf: (device: Device) => Promise<string | undefined>,
): Promise<FleetReadback> {
  const sample = spreadSample(devices, limit);
  const deadline = Date.now() + Math.max(target.timeouts.eventuallyMs, 2000);
  const retained = target.historyPerKey ?? Number.POSITIVE_INFINITY;
  const totals: FleetReadback = {
    devicesRead: sample.length,
    devicesTotal: devices.length,
    sent: 0,
    stored: 0,
    lost: 0,
    duplicated: 0,
    acknowledgedNotStored: 0,
    beyondRetention: 0,
    refusedStored: 0,
  };
  await mapLimited(sample, 8, async (device) => {
    const refused = new Set(device.notSucceeded);
    const id = await idOf(device);
    const seqs = id
      ? await readStoredSeqs(admin, id, {
          startTs,
          sent: device.sent,
          lastTs: device.lastTs,
          retained,
          expected: Math.min(device.sent - refused.size, retained),
          deadline,
          pollIntervalMs: target.timeouts.pollIntervalMs,
        })
      : [];
    const tally = tallySeqs(device.sent, device.notSucceeded, seqs, retained);
    for (const key of Object.keys(tally) as Array<keyof SeqTally>) totals[key] += tally[key];
    const stored = new Set(seqs);
    totals.refusedStored += [...refused].filter((seq) => stored.has(seq)).length;
  });
  return totals;
}
