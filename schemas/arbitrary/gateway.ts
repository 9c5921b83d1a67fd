/**
 * Gateway payloads (MQTT gateway API, schemas/gateway.ts): device name -> telemetry entries or
 * attributes, valid and malformed.
 */
import fc from 'fast-check';
import {
  gatewayAttributesSchema,
  gatewayTelemetryEntrySchema,
  gatewayTelemetrySchema,
} from '../gateway';
import { stringifyLossless } from '../../lib/kv/values';

import { type DeriveOptions, type JsonSchema, arbitraryFromSchema, defineMember } from './derive';
import {
  type ExpectedEntry,
  type MalformedPayload,
  type ValidPayload,
  brokenText,
  isMalformedFor,
  nonIntegerTs,
  objectEntries,
  plainKeyValues,
  primitive,
  structural,
  toValidPayload,
  withNullValue,
} from './payloads';
import {
  keyArbitrary,
  keyValueOverrides,
  payloadDeriveOptions,
  toWireTree,
  type ValueOptions,
} from './values';

export type GatewayResource = 'telemetry' | 'attributes';

/** An entry the platform must store for one device behind the gateway. */
export interface GatewayExpectedEntry extends ExpectedEntry {
  device: string;
}

export interface ValidGatewayPayload extends ValidPayload<GatewayResource> {
  expected: GatewayExpectedEntry[];
  /** Every device the payload names (also those without entries: the platform creates them all). */
  devices: string[];
}

interface GatewayMalformedPayload extends MalformedPayload {
  /**
   * The devices the body names (as far as it can be read), for proving that none of them got
   * anything stored.
   */
  devices: string[];
}

interface GatewayPayloadOptions extends ValueOptions {
  /**
   * Device names (the schemas' `propertyNames`). Default: keys the schema accepts. Steps pass a few
   * placeholder names and substitute the run's prefixed names into the body.
   */
  deviceNames?: fc.Arbitrary<string>;
}

/**
 * The derive options of a gateway payload: typed values, and the caller's device names for
 * `propertyNames`.
 */
function gatewayDeriveOptions(
  schema: JsonSchema,
  options: GatewayPayloadOptions,
  maxEntries: number,
): DeriveOptions {
  const overrides = new Map(keyValueOverrides(options));
  if (options.deviceNames) overrides.set(schema.propertyNames as object, options.deviceNames);
  return { overrides, keys: keyArbitrary(), maxEntries };
}

/**
 * Valid v1/gateway/telemetry: device → [{ts?, values}], derived from gatewayTelemetrySchema. Within
 * one device every key is unique across its entries (renamed `key~2`), so each key names exactly
 * one expected entry; an entry without ts is stored at server time (docs/reference/interfaces.md),
 * so its expected entries carry no ts.
 */
export function validGatewayTelemetry(
  options: GatewayPayloadOptions & {
    /**
     * Every entry carries ts: the payload scenarios that must run on a target declaring GW-TEL-03's
     * deviation (an entry without ts is read as key-value data) draw from it; `hasUntimedEntry`
     * picks the rest.
     */
    everyEntryTimed?: boolean;
  } = {},
): fc.Arbitrary<ValidGatewayPayload> {
  const schema = options.everyEntryTimed ? everyEntryTimedSchema : gatewayTelemetrySchema;
  return arbitraryFromSchema(schema, gatewayDeriveOptions(schema, options, 3)).map((generated) => {
    const document: Record<string, unknown> = {};
    const expected: GatewayExpectedEntry[] = [];
    for (const [device, entries] of Object.entries(
      generated as Record<string, Array<Record<string, unknown>>>,
    )) {
      const unique = uniqueKeys();
      const renamed = entries.map((entry) => {
        const copy: Record<string, unknown> = {};
        for (const [member, value] of Object.entries(entry)) defineMember(copy, member, value);
        copy.values = renameMembers(entry.values as Record<string, unknown>, unique);
        return copy;
      });
      defineMember(document, device, renamed);
      for (const entry of renamed) {
        const ts = entry.ts as number | undefined;
        for (const item of objectEntries(entry.values as Record<string, unknown>, ts))
          expected.push({ device, ...item });
      }
    }
    return {
      ...toValidPayload<GatewayResource>('telemetry', document, expected),
      expected,
      devices: Object.keys(document),
    };
  });
}

/**
 * gatewayTelemetrySchema with ts required in every entry (its propertyNames and values are the same
 * objects).
 */
const everyEntryTimedSchema = {
  ...gatewayTelemetrySchema,
  $id: 'iotc:gateway-telemetry-every-entry-timed',
  additionalProperties: {
    ...gatewayTelemetrySchema.additionalProperties,
    items: { ...gatewayTelemetryEntrySchema, required: ['ts', 'values'] },
  },
} as const;

/**
 * Whether a valid gateway telemetry payload has an entry without ts (its expected entries carry no
 * ts).
 */
export function hasUntimedEntry(payload: Pick<ValidGatewayPayload, 'expected'>): boolean {
  return payload.expected.some((entry) => entry.ts === undefined);
}

/** Valid v1/gateway/attributes: device → {key: value}, derived from gatewayAttributesSchema. */
export function validGatewayAttributes(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<ValidGatewayPayload> {
  return arbitraryFromSchema(
    gatewayAttributesSchema,
    gatewayDeriveOptions(gatewayAttributesSchema, options, 3),
  ).map((generated) => {
    const document = generated as Record<string, Record<string, unknown>>;
    const expected = Object.entries(document).flatMap(([device, attributes]) =>
      objectEntries(attributes).map((entry) => ({ device, ...entry })),
    );
    return {
      ...toValidPayload<GatewayResource>('attributes', document, expected),
      expected,
      devices: Object.keys(document),
    };
  });
}

function uniqueKeys(): (key: string) => string {
  const seen = new Set<string>();
  return (key) => {
    let candidate = key;
    for (let n = 2; seen.has(candidate); n++) candidate = `${key}~${n}`;
    seen.add(candidate);
    return candidate;
  };
}

function renameMembers(
  object: Record<string, unknown>,
  unique: (key: string) => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) defineMember(out, unique(key), value);
  return out;
}

/** A document with one member added (a device holding a defect), as plain JS. */
function withMember(
  document: Record<string, unknown>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const out = { ...document };
  defineMember(out, name, value);
  return out;
}

/** Device names the body names at its top level, when it is a JSON object. */
function namedDevices(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? Object.keys(parsed).filter((name) => name !== '')
      : [];
  } catch {
    return [];
  }
}

/**
 * Gateway payloads with one defect, next to valid data of other devices when the defect allows it
 * (the whole message must be refused, not just the broken device). Built from the valid arbitrary;
 * each keeps only the bodies its schema (or JSON.parse) rejects.
 */
function malformedGateway(
  schema: JsonSchema,
  valid: fc.Arbitrary<ValidGatewayPayload>,
  defects: Array<[defect: string, document: fc.Arbitrary<unknown>]>,
): fc.Arbitrary<GatewayMalformedPayload> {
  const documents = defects.map(([defect, document]) => structural(defect, document));
  return fc
    .oneof(...documents, brokenText(valid.map((payload) => payload.body)))
    .map(
      (payload): GatewayMalformedPayload => ({ ...payload, devices: namedDevices(payload.body) }),
    )
    .filter((payload) => isMalformedFor(schema, payload.body));
}

/**
 * What the malformed payloads keyed by device name share: valid neighbours for a broken member, a
 * document whose device `name` has a broken value beside them, and the two defects of every such
 * payload (the top level is not an object; no device at all).
 */
function byDeviceDefects(valid: fc.Arbitrary<ValidGatewayPayload>, names: fc.Arbitrary<string>) {
  const neighbours = fc.option(
    valid.map((payload) => payload.document as Record<string, unknown>),
    { nil: {} },
  );
  const badDevice = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(neighbours, names, value).map(([others, name, bad]) => withMember(others, name, bad));
  const everyPayloadsDefects: Array<[defect: string, document: fc.Arbitrary<unknown>]> = [
    [
      'top level is not an object',
      fc.oneof(
        primitive(),
        fc.array(
          valid.map((payload) => payload.document),
          { maxLength: 2 },
        ),
      ),
    ],
    ['no device', fc.constant({})],
  ];
  return { neighbours, badDevice, everyPayloadsDefects };
}

/**
 * Malformed v1/gateway/telemetry: not JSON, wrong top level, device value not an array, bad
 * entries, null values.
 */
export function malformedGatewayTelemetry(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<GatewayMalformedPayload> {
  const names = options.deviceNames ?? keyArbitrary();
  const valid = validGatewayTelemetry({ deviceNames: names });
  const { neighbours, badDevice, everyPayloadsDefects } = byDeviceDefects(valid, names);
  const entry = arbitraryFromSchema(gatewayTelemetryEntrySchema, {
    ...payloadDeriveOptions(),
    maxEntries: 3,
  }).map((generated) => JSON.parse(stringifyLossless(toWireTree(generated))) as unknown);
  const timestamp = arbitraryFromSchema(gatewayTelemetryEntrySchema.properties.ts);
  return malformedGateway(gatewayTelemetrySchema, valid, [
    ...everyPayloadsDefects,
    [
      'empty device name',
      fc
        .tuple(neighbours, fc.array(entry, { minLength: 1, maxLength: 2 }))
        .map(([others, entries]) => withMember(others, '', entries)),
    ],
    [
      'device value is not an array',
      badDevice(
        fc.oneof(primitive(), entry, fc.dictionary(keyArbitrary(), primitive(), { maxKeys: 2 })),
      ),
    ],
    [
      'entry is not an object',
      badDevice(
        fc
          .tuple(
            fc.array(entry, { maxLength: 2 }),
            fc.oneof(primitive(), fc.array(primitive(), { maxLength: 2 })),
          )
          .map(([good, bad]) => [...good, bad]),
      ),
    ],
    [
      'values is not an object',
      badDevice(
        fc
          .tuple(
            fc.option(timestamp, { nil: undefined }),
            fc.oneof(primitive(), fc.array(primitive(), { maxLength: 3 })),
          )
          .map(([ts, values]) => [ts === undefined ? { values } : { ts, values }]),
      ),
    ],
    ['entry without values', badDevice(timestamp.map((ts) => [{ ts }]))],
    [
      'ts is not an integer',
      badDevice(fc.tuple(nonIntegerTs(), plainKeyValues()).map(([ts, values]) => [{ ts, values }])),
    ],
    [
      'null value',
      badDevice(
        fc
          .tuple(fc.option(timestamp, { nil: undefined }), withNullValue())
          .map(([ts, values]) => [ts === undefined ? { values } : { ts, values }]),
      ),
    ],
  ]);
}

/**
 * Malformed v1/gateway/attributes: not JSON, wrong top level, device value not an object, null
 * values.
 */
export function malformedGatewayAttributes(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<GatewayMalformedPayload> {
  const names = options.deviceNames ?? keyArbitrary();
  const valid = validGatewayAttributes({ deviceNames: names });
  const { neighbours, badDevice, everyPayloadsDefects } = byDeviceDefects(valid, names);
  return malformedGateway(gatewayAttributesSchema, valid, [
    ...everyPayloadsDefects,
    [
      'empty device name',
      fc
        .tuple(neighbours, plainKeyValues())
        .map(([others, attributes]) => withMember(others, '', attributes)),
    ],
    [
      'device value is not an object',
      badDevice(
        fc.oneof(primitive(), fc.array(fc.oneof(primitive(), plainKeyValues()), { maxLength: 2 })),
      ),
    ],
    ['null value', badDevice(withNullValue())],
  ]);
}
