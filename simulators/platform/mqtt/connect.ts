/**
 * CONNECT: the access token is the user name (docs/reference/interfaces.md, MQTT gateway API); the
 * password is ignored. Refusals follow ThingsBoard (docs/reference/platform-facts.md §4.1): unknown
 * credentials → v5 0x86 / v3 5; no user name and no password but a client id → v5 0x85 / v3 2;
 * otherwise → v5 0x87 / v3 5. A device whose additionalInfo.gateway is true at connect time gets a
 * gateway session. A second connection with the same token takes the session over: the older one
 * gets DISCONNECT 0x8E (v5) and closes. User name or client id `provision` opens a
 * provisioning-only session without authentication (provision-session.ts). Reading the token and
 * refusing an unknown one are named steps (CONNECT_STEPS) that the planted faults
 * (faults/catalogue/mqtt-gateway-api.ts) wrap (CONNECT_FAULTS).
 */
import type { IConnectPacket } from 'mqtt-packet';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { CONNACK_V3, REASON } from './reason-codes';
import { GatewayDevices } from './gateway-devices';
import { PROVISION_USER } from './provision-session';
import type { MqttSession } from './session';

const CLIENT_IDENTIFIER_NOT_VALID = 0x85;

export function handleConnect(session: MqttSession, packet: IConnectPacket): void {
  if (session.device || session.provisionOnly) return session.end(REASON.PROTOCOL_ERROR); // a second CONNECT is a protocol violation
  session.protocolVersion = packet.protocolVersion ?? 4;
  if (![3, 4, 5].includes(session.protocolVersion)) {
    session.protocolVersion = 4;
    session.send({ cmd: 'connack', returnCode: 1, sessionPresent: false }); // unacceptable protocol version
    return session.end();
  }
  const { core, sessionsByDevice } = session.context;
  const steps = withFaults(CONNECT_STEPS, CONNECT_FAULTS);
  const username = steps.token(session, packet);
  if ((packet.username ?? '') === PROVISION_USER || packet.clientId === PROVISION_USER) {
    session.provisionOnly = true; // no authentication (docs/reference/platform-facts.md §4.1, §6)
    return accept(session);
  }
  const device = username ? core.deviceByTokenValue(username) : undefined;
  if (!device) return steps.unknown(session, packet, username);
  sessionsByDevice.get(device.id)?.end(REASON.SESSION_TAKEN_OVER);
  session.device = device;
  sessionsByDevice.set(device.id, session);
  if (device.additionalInfo?.gateway === true) session.gateway = new GatewayDevices(session);
  session.onEnd(
    'deleted',
    core.on(device, 'deleted', () => session.end(REASON.ADMINISTRATIVE_ACTION)),
  );
  accept(session);
}

/** The named steps of authentication. */
const CONNECT_STEPS = {
  /** The access token: the user name. */
  token: (_session: MqttSession, packet: IConnectPacket): string => packet.username ?? '',
  /** No device has the token: a refusing CONNACK whose code says why. */
  unknown: (session: MqttSession, packet: IConnectPacket, username: string): void => {
    const anonymous = !username && packet.password === undefined;
    const [v5, v3] =
      anonymous && packet.clientId
        ? [CLIENT_IDENTIFIER_NOT_VALID, CONNACK_V3.IDENTIFIER_REJECTED]
        : username
          ? [REASON.BAD_USER_NAME_OR_PASSWORD, CONNACK_V3.NOT_AUTHORIZED]
          : [REASON.NOT_AUTHORIZED, CONNACK_V3.NOT_AUTHORIZED];
    refuse(session, v5, v3);
  },
};

/** The planted faults of authentication, wrappers of its steps. */
const CONNECT_FAULTS: StepFaults<typeof CONNECT_STEPS> = {
  'GW-AUTH-01:tls-token-from-password': {
    token: (step) => (session, packet) =>
      'encrypted' in session.socket ? (packet.password?.toString() ?? '') : step(session, packet),
  },
  'GW-AUTH-01:unknown-token-accepted': {
    // accepted, and then served as no device (the session has none)
    unknown: () => (session) =>
      session.send(
        session.v5
          ? { cmd: 'connack', reasonCode: 0, sessionPresent: false }
          : { cmd: 'connack', returnCode: 0, sessionPresent: false },
      ),
  },
};

function accept(session: MqttSession): void {
  // MQTT 5: the platform's maximum QoS is 1 and it keeps no retained messages
  // (docs/reference/platform-facts.md §4.2)
  session.send(
    session.v5
      ? {
          cmd: 'connack',
          reasonCode: 0,
          sessionPresent: false,
          properties: { maximumQoS: 1, retainAvailable: false },
        }
      : { cmd: 'connack', returnCode: 0, sessionPresent: false },
  );
}

/**
 * A refusing CONNACK, then the connection closes. ThingsBoard also sends an MQTT 5 DISCONNECT with
 * the CONNACK's code, but 0x85–0x87 are not DISCONNECT reason codes (MQTT 5 §3.14.2.1) and clients
 * reject that packet as malformed; quirks mode refusingConnackFollowedByDisconnect does so too.
 */
function refuse(session: MqttSession, v5Code: number, v3Code: number): void {
  const thingsboard = session.v5 && session.context.quirks.refusingConnackFollowedByDisconnect;
  // CONNACK and DISCONNECT in one write (the transport holds a chunk's writes): read together by
  // the client
  session.send(
    session.v5
      ? { cmd: 'connack', reasonCode: v5Code, sessionPresent: false }
      : { cmd: 'connack', returnCode: v3Code, sessionPresent: false },
  );
  if (thingsboard) {
    // written raw: mqtt-packet generates no DISCONNECT with a CONNACK-only code (type 0xE0, length
    // 2, code, no props)
    session.write(Buffer.from([0xe0, 0x02, v5Code, 0x00]));
  }
  session.end();
}
