/**
 * PINGREQ → PINGRESP (keep-alive is not enforced, as ThingsBoard: docs/reference/platform-facts.md
 * §4.1).
 */
import type { MqttSession } from './session';

export function handlePing(session: MqttSession): void {
  session.send({ cmd: 'pingresp' });
}
