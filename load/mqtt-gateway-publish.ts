/**
 * The publishing of the mqtt-gateway load profile: the message of one device (its seq at its own timestamp, padded
 * to a size) and one gateway's loop at a rate, telling the recorder every publish and its answer.
 */
import { isFailure, type PublishOutcome, type Qos } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, type MqttGateway } from '../simulators/gateway/mqtt-gateway';
import type { LoadRecorder } from './recorder';
import { nextSeq, type SentDevice } from './seq-readback';

const TICK_MS = 5;

/** `,"pad":""` around the padding string. */
export const PAD_OVERHEAD = ',"pad":""'.length;

/** A sub-device as the publisher sees it. */
export interface PublishingDevice extends SentDevice {
  name: string;
}

export function messageText(device: string, ts: number, seq: number, pad: string): string {
  const values = pad
    ? `{"seq":${seq},"v":${seq % 1000},"pad":"${pad}"}`
    : `{"seq":${seq},"v":${seq % 1000}}`;
  return `{${JSON.stringify(device)}:[{"ts":${ts},"values":${values}}]}`;
}

/** The error kind of a publish that did not succeed: a failure PUBACK with its reason, or how it ended. */
export function publishErrorKind(outcome: PublishOutcome): string {
  if (outcome.result === 'acked' || outcome.result === 'sent')
    return `PUBACK 0x${(outcome.reasonCode ?? 0).toString(16).padStart(2, '0')}${outcome.reasonString ? ` ${outcome.reasonString}` : ''}`;
  return `publish ${outcome.result}`;
}

export interface LoopSettings {
  rate: number;
  /** performance.now() at which publishing stops. */
  deadline: number;
  window: number;
  qos: Qos;
  pad: string;
  signal: AbortSignal;
}

/**
 * One gateway's publishing: on every tick, as many messages as the rate owes since the start, round robin over its
 * devices, while fewer than `window` are unanswered. Stops at the deadline (or on abort), then waits for the answers
 * of what it sent (each bounded by the connection's ack timeout).
 */
export async function publishLoop(
  gateway: MqttGateway,
  devices: PublishingDevice[],
  settings: LoopSettings,
  recorder: LoadRecorder,
): Promise<{ sent: number; behind: number }> {
  const started = performance.now();
  let sent = 0;
  let inFlight = 0;
  let next = 0;
  const pending = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const publishOne = () => {
    const device = devices[next];
    next = (next + 1) % devices.length;
    const seq = nextSeq(device);
    inFlight++;
    sent++;
    recorder.sent();
    const done = gateway
      .publish(
        GATEWAY_TOPICS.telemetry,
        { raw: messageText(device.name, device.lastTs, seq, settings.pad) },
        settings.qos,
      )
      .then((outcome) => {
        const failed = isFailure(outcome);
        if (failed) device.notSucceeded.push(seq);
        recorder.answered(outcome.elapsedMs, failed ? publishErrorKind(outcome) : undefined);
      })
      .finally(() => {
        inFlight--;
        pending.delete(done);
        wake?.();
      });
    pending.add(done);
  };
  while (performance.now() < settings.deadline && !settings.signal.aborted && devices.length > 0) {
    const owed = Math.floor(((performance.now() - started) / 1000) * settings.rate) + 1;
    while (sent < owed && inFlight < settings.window) publishOne();
    // sleep a tick, or less when an answer frees the window while messages are owed
    await new Promise<void>((resolveTick) => {
      const timer = setTimeout(
        () => {
          wake = undefined;
          resolveTick();
        },
        Math.min(TICK_MS, Math.max(0, settings.deadline - performance.now())),
      );
      wake =
        sent < owed
          ? () => {
              clearTimeout(timer);
              wake = undefined;
              resolveTick();
            }
          : undefined;
    });
  }
  const owedAtEnd = Math.floor(
    ((Math.min(performance.now(), settings.deadline) - started) / 1000) * settings.rate,
  );
  await Promise.all([...pending]);
  return { sent, behind: Math.max(0, owedAtEnd - sent) };
}
