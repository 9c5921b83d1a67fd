/**
 * Half-open connections end (issue 13 finding 4): a connection that sends no CONNECT within the
 * connect timeout is closed, and a connected client that sends nothing for one and a half times its
 * keep-alive is disconnected (MQTT 3.1.1 §3.1.2.10, MQTT 5 §3.1.2.10; MQTT 5 DISCONNECT 0x8D), so
 * RPCs stop going to a dead session. Only what the client sends counts: the platform's own
 * publishes to a dead client do not keep it alive.
 */

import { type StepFaults, withFaults } from '../../../faults/steps';

/**
 * The named steps of liveness: the CONNECT deadline, and whether hearing the client restarts the
 * deadline.
 */
const LIVENESS_STEPS = {
  connectTimeoutMs: (configured: number | undefined): number | undefined => configured,
  /**
   * Until the CONNECT is accepted the deadline is absolute: a CONNECT sent one byte a second must
   * not outlive it.
   */
  restarts: (connecting: boolean): boolean => !connecting,
};

/** The planted faults of liveness (faults/catalogue/robustness.ts), wrappers of its steps. */
const LIVENESS_FAULTS: StepFaults<typeof LIVENESS_STEPS> = {
  'ROB-CONN-02:no-connect-timeout': { connectTimeoutMs: () => () => undefined },
  'ROB-CONN-02:connect-deadline-restarts': { restarts: () => () => true },
};

/**
 * Default time a new connection has to send its CONNECT. ThingsBoard has no such deadline (no idle
 * handler in its MQTT pipeline; its MQTT_TIMEOUT, also 10000, is the RPC delivery timeout,
 * MqttTransportHandler.java:1555).
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export class Liveness {
  private timer: NodeJS.Timeout | undefined;
  private connecting = true;
  /** The steps with the faults on when the connection opened. */
  private readonly steps = withFaults(LIVENESS_STEPS, LIVENESS_FAULTS);

  /**
   * Without a connect timeout (quirks mode thingsboard-4.3) neither the CONNECT nor the keep-alive
   * is awaited.
   */
  private readonly enforced: boolean;

  constructor(
    connectTimeoutMs: number | undefined,
    private readonly expired: (phase: 'connect' | 'keep-alive') => void,
  ) {
    this.enforced = connectTimeoutMs !== undefined;
    const deadline = this.steps.connectTimeoutMs(connectTimeoutMs);
    if (deadline !== undefined) this.timer = setTimeout(() => expired('connect'), deadline).unref();
  }

  /**
   * The client sent something: the keep-alive deadline starts again (the CONNECT deadline does not
   * move).
   */
  heard(): void {
    if (this.steps.restarts(this.connecting)) this.timer?.refresh();
  }

  /**
   * The CONNECT was accepted: from now on the client's keep-alive (seconds; 0 = none) sets the
   * deadline.
   */
  connected(keepAliveSeconds: number): void {
    this.stop();
    this.connecting = false;
    if (this.enforced && keepAliveSeconds > 0)
      this.timer = setTimeout(() => this.expired('keep-alive'), keepAliveSeconds * 1500).unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
