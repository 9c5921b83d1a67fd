/**
 * The publishing of the mqtt-gateway load profile: the message of one device (its seq at its own
 * timestamp, padded to a size) and one gateway's loop at a rate, telling the recorder every publish
 * and its answer.
 */
import { isFailure, type PublishOutcome, type Qos } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS } from '../simulators/gateway/mqtt-gateway';
import type { LeanGateway } from './lean-gateway';
import type { LoadRecorder } from './recorder';
import { nextSeq, type SentDevice } from './seq-readback';

const TICK_MS = 5;

/** `,"pad":""` around the padding string. */
export const PAD_OVERHEAD = ',"pad":""'.length;

/** A sub-device as the publisher sees it. */
export interface PublishingDevice extends SentDevice {
  name: string;
  /** messageHead(name), kept with the device: its name is quoted once, not per message. */
  messageHead: string;
}

export function messageText(device: string, ts: number, seq: number, pad: string): string {
  return messageOf(messageHead(device), ts, seq, messageTail(pad));
}

/** The start of every message of a device: `{"<name>":[{"ts":`, the name quoted as JSON. */
export function messageHead(device: string): string {
  return `{${JSON.stringify(device)}:[{"ts":`;
}

/** The end of every message of a run: the padding, if any, and the closing brackets. */
export function messageTail(pad: string): string {
  return pad ? `,"pad":"${pad}"}}]}` : '}}]}';
}

/** One message: a device's head, its ts, seq and v, and the run's tail. */
export function messageOf(head: string, ts: number, seq: number, tail: string): string {
  return `${head}${ts},"values":{"seq":${seq},"v":${seq % 1000}${tail}`;
}

/**
 * The error kind of a publish that did not succeed: a failure PUBACK with its reason, or how it
 * ended.
 */
function publishErrorKind(outcome: PublishOutcome): string {
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
 * One gateway's publishing: as many messages as the rate owes since the start, round robin over its
 * devices, while fewer than `window` are unanswered. The window is refilled from each answer as it
 * comes (no timer or promise per answer, one promise per publish), and a tick every TICK_MS sends
 * what the rate owes when the window is not the limit. Stops at the deadline (or on abort), then
 * waits for the answers of what it sent (each bounded by the connection's ack timeout); a publish
 * that rejected (misuse, not an outcome) or an answer the accounting could not take is thrown then.
 */
export async function publishLoop(
  gateway: Pick<LeanGateway, 'send'>,
  devices: PublishingDevice[],
  settings: LoopSettings,
  recorder: LoadRecorder,
): Promise<{ sent: number; behind: number }> {
  const started = performance.now();
  const tail = messageTail(settings.pad);
  let sent = 0;
  let inFlight = 0;
  let next = 0;
  let sending = devices.length > 0;
  let rejected: { error: unknown } | undefined;
  let stopSending = () => {};
  let allAnswered: (() => void) | undefined;
  const answered = () => {
    inFlight--;
    if (sending) pump();
    else if (inFlight === 0) allAnswered?.();
  };
  const intervalMs = 1000 / settings.rate;
  const publishOne = (now: number) => {
    const device = devices[next];
    next = (next + 1) % devices.length;
    const seq = nextSeq(device);
    recorder.queued(now - (started + sent * intervalMs));
    inFlight++;
    sent++;
    recorder.sent();
    gateway.send(
      GATEWAY_TOPICS.telemetry,
      messageOf(device.messageHead, device.lastTs, seq, tail),
      settings.qos,
      (outcome) => {
        try {
          const failed = isFailure(outcome);
          if (failed) device.notSucceeded.push(seq);
          recorder.answered(outcome.elapsedMs, failed ? publishErrorKind(outcome) : undefined);
        } catch (error) {
          rejected ??= { error };
        }
        answered();
      },
    );
  };
  /**
   * Sends what the rate owes now, as far as the window lets; stops sending at the deadline or on
   * abort.
   */
  function pump(): void {
    const now = performance.now();
    if (now >= settings.deadline || settings.signal.aborted) return stopSending();
    const owed = Math.floor(((now - started) / 1000) * settings.rate) + 1;
    while (sent < owed && inFlight < settings.window) publishOne(now);
  }
  if (sending)
    await new Promise<void>((resolveSending) => {
      const ticker = setInterval(pump, TICK_MS);
      const deadline = setTimeout(pump, Math.max(0, settings.deadline - performance.now()));
      stopSending = () => {
        sending = false;
        clearInterval(ticker);
        clearTimeout(deadline);
        settings.signal.removeEventListener('abort', pump);
        resolveSending();
      };
      settings.signal.addEventListener('abort', pump);
      pump();
    });
  const owedAtEnd = Math.floor(
    ((Math.min(performance.now(), settings.deadline) - started) / 1000) * settings.rate,
  );
  if (inFlight > 0) await new Promise<void>((resolve) => (allAnswered = resolve));
  if (rejected) throw rejected.error;
  return { sent, behind: Math.max(0, owedAtEnd - sent) };
}
