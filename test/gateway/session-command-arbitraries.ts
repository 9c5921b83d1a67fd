/**
 * How a run of the gateway session model picks its commands (fast-check arbitraries over
 * session-*-commands.ts).
 */
import fc from 'fast-check';
import { keyArbitrary, typedValueArbitrary } from '../../schemas/arbitrary';
import {
  type Command,
  Connect,
  Disconnect,
  Telemetry,
  Attributes,
  type RequestShape,
  AttributeRequestCommand,
} from './session-commands';
import { SharedUpdate, Rpc, ExpiringRpc, GatewayReconnect } from './session-delivery-commands';

// ---------------------------------------------------------------------------------------------------------------
// Command arbitraries

export interface CommandSettings {
  devices: number;
  types: number;
  /** Include ExpiringRpc (needs a target whose minimum RPC timeout is short). */
  expiringRpcs: boolean;
}

/**
 * A few keys per scope, so that writes overwrite each other and requests find some keys and miss
 * others.
 */
const TELEMETRY_KEYS = ['temperature', 'count', 'mode'];
const CLIENT_KEYS = ['fw', 'serial', 'room'];
const SHARED_KEYS = ['period', 'target', 'room'];

export function commandArbitraries(settings: CommandSettings): Array<fc.Arbitrary<Command>> {
  const device = fc.nat({ max: settings.devices - 1 });
  const entries = (keys: string[]) =>
    fc.uniqueArray(
      fc.tuple(
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom(...keys) },
          { weight: 1, arbitrary: keyArbitrary() },
        ),
        typedValueArbitrary(),
      ),
      { selector: ([key]) => key, minLength: 1, maxLength: 3 },
    );
  // explicit timestamps lie in the past (2020..2023), so that server-stamped entries are always
  // later
  const ts = fc.integer({ min: 1_577_836_800_000, max: 1_700_000_000_000 });
  const telemetryEntry = fc
    .record({ ts: fc.option(ts, { nil: undefined }), values: entries(TELEMETRY_KEYS) })
    .map((entry) => (entry.ts === undefined ? { values: entry.values } : entry));
  const requestKeys = fc.uniqueArray(fc.constantFrom(...CLIENT_KEYS, ...SHARED_KEYS, 'absent'), {
    maxLength: 3,
  });
  const request: fc.Arbitrary<RequestShape> = fc.oneof(
    fc.record({ client: requestKeys, shared: requestKeys }, { requiredKeys: [] }),
    fc.record({
      client: fc.boolean(),
      key: fc.constantFrom(...CLIENT_KEYS, ...SHARED_KEYS, 'absent'),
    }),
    fc.record({ client: fc.boolean(), keys: requestKeys.filter((keys) => keys.length > 0) }),
  );
  const commands: Array<fc.Arbitrary<Command>> = [
    fc
      .tuple(device, fc.option(fc.nat({ max: settings.types - 1 }), { nil: undefined }))
      .map(([d, type]) => new Connect(d, type)),
    device.map((d) => new Disconnect(d)),
    fc
      .tuple(device, fc.array(telemetryEntry, { minLength: 1, maxLength: 3 }))
      .map(([d, list]) => new Telemetry(d, list)),
    fc.tuple(device, entries(CLIENT_KEYS)).map(([d, values]) => new Attributes(d, values)),
    fc.tuple(device, request).map(([d, shape]) => new AttributeRequestCommand(d, shape)),
    fc.tuple(device, entries(SHARED_KEYS)).map(([d, values]) => new SharedUpdate(d, values)),
    fc
      .tuple(
        device,
        fc.constantFrom('setMode', 'reboot', 'getState'),
        fc.dictionary(
          fc.constantFrom('a', 'b', 'level'),
          fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean()),
          { maxKeys: 2 },
        ),
      )
      .map(([d, method, params]) => new Rpc(d, method, { ...params })),
  ];
  commands.push(fc.boolean().map((takeOver) => new GatewayReconnect(takeOver)));
  if (settings.expiringRpcs) commands.push(device.map((d) => new ExpiringRpc(d)));
  return commands;
}
