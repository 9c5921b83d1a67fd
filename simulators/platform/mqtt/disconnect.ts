/** DISCONNECT from the client: the session ends quietly (no DISCONNECT back). */
import type { MqttSession } from './session';

export function handleDisconnect(session: MqttSession): void {
  session.end();
}
