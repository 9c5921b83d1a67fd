/**
 * Sharding a load run over processes or machines: shard i of n (0-based, as a Kubernetes Indexed
 * Job's JOB_COMPLETION_INDEX) takes the i-th of n contiguous blocks of the devices, gateways or
 * connections (blocks, not every n-th: what a profile spreads over its items by index, such as the
 * invalid tokens of a storm, then spreads over the shards too, instead of landing on one of them);
 * the names keep the global index, so the shards together create exactly what one process would,
 * and each shard's own run id keeps them from colliding. All shards wait for one shared start time
 * before they send.
 */
import { IotcError } from '../lib/errors';

export interface Shard {
  /** 0 .. count - 1 */
  index: number;
  count: number;
}

export const WHOLE_RUN: Shard = { index: 0, count: 1 };

/** A `--shard i/n` or `--shard-count` that names no shard. */
export class ShardError extends IotcError {
  readonly code = 'IOTC_LOAD_SHARD';
}

/** `i/n` with 0 <= i < n. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const shard = match ? { index: Number(match[1]), count: Number(match[2]) } : undefined;
  if (!shard || shard.count < 1 || shard.index >= shard.count)
    throw new ShardError(
      `shard ${JSON.stringify(text)} is not i/n with 0 <= i < n (0-based, as JOB_COMPLETION_INDEX), e.g. 0/4`,
    );
  return shard;
}

/** The shard of a Kubernetes Indexed Job's pod: its JOB_COMPLETION_INDEX of `count`. */
export function shardFromEnvironment(
  count: number,
  environment: NodeJS.ProcessEnv = process.env,
): Shard {
  const index = environment.JOB_COMPLETION_INDEX;
  if (index === undefined || !/^\d+$/.test(index))
    throw new ShardError(
      `--shard-count needs JOB_COMPLETION_INDEX in the environment (a Kubernetes Indexed Job sets it), found ${JSON.stringify(index)}`,
    );
  return parseShard(`${index}/${count}`);
}

/**
 * The global indexes of `total` items that are this shard's: its block, floor(i·total/n) up to
 * floor((i+1)·total/n).
 */
export function shardIndexes(total: number, shard: Shard): number[] {
  const first = Math.floor((shard.index * total) / shard.count);
  const end = Math.floor(((shard.index + 1) * total) / shard.count);
  const indexes = Array.from({ length: end - first }, (_, k) => first + k);
  if (indexes.length === 0)
    throw new ShardError(
      `shard ${shard.index}/${shard.count} has nothing to do: ${total} items for ${shard.count} shards`,
    );
  return indexes;
}

/** `--start-at`: an ISO 8601 time or milliseconds since the epoch. */
export function parseStartAt(text: string): number {
  const at = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(at))
    throw new ShardError(
      `start time ${JSON.stringify(text)} is neither an ISO 8601 time nor milliseconds since the epoch`,
    );
  return at;
}

/** Resolves at `at` (epoch ms), at once when it has passed, or early when the run is stopped. */
export function waitUntil(at: number, signal: AbortSignal): Promise<void> {
  const delay = at - Date.now();
  if (delay <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolveWait) => {
    const timer = setTimeout(done, delay);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolveWait();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
