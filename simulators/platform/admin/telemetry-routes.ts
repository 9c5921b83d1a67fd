/** Time series and attributes of a device (prefix /api/plugins/telemetry; platform-facts.md §8). */
import {
  parseLossless,
  stringifyLossless,
  typedValueToLossless,
  typedValueToString,
  type TypedValue,
} from '../../../lib/kv/values';
import { telemetrySchema } from '../../../schemas';
import { BadRequestError } from '../core/errors';
import { ATTRIBUTE_SCOPES, type AttributeScope, type Device } from '../core/model';
import { keysParameter } from '../http/exchange';
import { typedEntries } from '../core/payloads';
import { runPayloadJobSoon } from '../core/off-thread';
import { historyOf, type TelemetryRecord } from '../core/time-series';
import { NO_QUIRKS } from '../quirks';
import type { AdminRoute } from './route';

const PREFIX = '/api/plugins/telemetry/DEVICE/:deviceId';

function valueOut(value: TypedValue, strict: boolean): unknown {
  return strict ? typedValueToLossless(value) : typedValueToString(value);
}

function scopeOf(name: string, writable: boolean): AttributeScope {
  const allowed: readonly string[] = writable ? ['SHARED_SCOPE', 'SERVER_SCOPE'] : ATTRIBUTE_SCOPES;
  if (!allowed.includes(name)) throw new BadRequestError(`Invalid scope: ${name}`);
  return name as AttributeScope;
}

function attributesOut(
  device: Device,
  scopes: readonly AttributeScope[],
  keys: string[] | undefined,
): string {
  const out: Array<{ key: string; value: unknown; lastUpdateTs: number }> = [];
  for (const scope of scopes) {
    for (const [key, attribute] of device.attributes[scope]) {
      if (!keys || keys.includes(key))
        out.push({
          key,
          value: typedValueToLossless(attribute.value),
          lastUpdateTs: attribute.lastUpdateTs,
        });
    }
  }
  return stringifyLossless(out);
}

/** A JSON object of attributes to save, with the REST API's messages for what it refuses. */
function attributesToSave(text: string): Array<[string, TypedValue]> {
  let document: unknown;
  try {
    document = parseLossless(text);
  } catch {
    throw new BadRequestError('Invalid JSON');
  }
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw new BadRequestError('Invalid JSON');
  const entries = typedEntries(document);
  if (entries.length === 0) throw new BadRequestError('No attributes data found in request body!');
  if (entries.some(([key]) => !key.trim())) throw new BadRequestError('Key cannot be blank');
  return entries;
}

export const telemetryRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: `${PREFIX}/values/timeseries`,
    summary:
      'Latest time series values, or the history with startTs and endTs; strings unless useStrictDataTypes=true',
    handler({ device: deviceFor, params, query }) {
      const device = deviceFor(params.deviceId, 'READ_TELEMETRY');
      const strict = query.get('useStrictDataTypes') === 'true';
      const keys = keysParameter(query, 'keys') ??
        keysParameter(query, 'key') ?? [...device.latest.keys()];
      const out: Record<string, Array<{ ts: number; value: unknown }>> = {};
      if (query.get('startTs') !== null || query.get('endTs') !== null) {
        const startTs = Number(query.get('startTs') ?? 0);
        const endTs = Number(query.get('endTs') ?? Date.now());
        if (!Number.isFinite(startTs) || !Number.isFinite(endTs))
          throw new BadRequestError('Invalid startTs or endTs');
        const limit = Math.max(1, Number(query.get('limit') ?? 100) || 100);
        const ascending = query.get('orderBy') === 'ASC';
        for (const key of keys) {
          const series = historyOf(device, key, { startTs, endTs, limit, ascending });
          if (series.length)
            out[key] = series.map((entry) => ({
              ts: entry.ts,
              value: valueOut(entry.value, strict),
            }));
        }
      } else {
        for (const key of keys) {
          const latest = device.latest.get(key);
          out[key] = [
            latest
              ? { ts: latest.ts, value: valueOut(latest.value, strict) }
              : { ts: Date.now(), value: null },
          ];
        }
      }
      return { jsonText: stringifyLossless(out) };
    },
  },
  {
    method: 'GET',
    path: `${PREFIX}/keys/timeseries`,
    summary: 'The time series keys of a device',
    handler: ({ device, params }) => ({
      json: [...device(params.deviceId, 'READ_TELEMETRY').latest.keys()],
    }),
  },
  {
    method: 'POST',
    path: `${PREFIX}/timeseries/:scope`,
    summary: 'Save time series (any of the three telemetry forms)',
    requestSchema: telemetrySchema,
    async handler({ core, device: deviceFor, params, bodyText }) {
      const device = deviceFor(params.deviceId, 'WRITE_TELEMETRY');
      const text = await bodyText();
      const records = await runPayloadJobSoon({
        kind: 'telemetry',
        text,
        now: Date.now(),
        quirks: NO_QUIRKS,
      });
      core.saveTelemetry(device, records as TelemetryRecord[]);
    },
  },
  {
    method: 'GET',
    path: `${PREFIX}/values/attributes`,
    summary: 'Attributes of every scope, typed',
    handler({ device, params, query }) {
      return {
        jsonText: attributesOut(
          device(params.deviceId, 'READ_ATTRIBUTES'),
          ATTRIBUTE_SCOPES,
          keysParameter(query, 'keys'),
        ),
      };
    },
  },
  {
    method: 'GET',
    path: `${PREFIX}/values/attributes/:scope`,
    summary: 'Attributes of one scope (CLIENT_SCOPE, SHARED_SCOPE, SERVER_SCOPE), typed',
    handler({ device, params, query }) {
      return {
        jsonText: attributesOut(
          device(params.deviceId, 'READ_ATTRIBUTES'),
          [scopeOf(params.scope, false)],
          keysParameter(query, 'keys'),
        ),
      };
    },
  },
  ...[`${PREFIX}/:scope`, `${PREFIX}/attributes/:scope`].map(
    (path): AdminRoute => ({
      method: 'POST',
      path,
      summary: 'Save SHARED_SCOPE or SERVER_SCOPE attributes; shared changes reach the device',
      async handler({ core, device: deviceFor, params, bodyText }) {
        const device = deviceFor(params.deviceId, 'WRITE_ATTRIBUTES');
        try {
          core.saveAttributes(
            device,
            scopeOf(params.scope, true),
            attributesToSave(await bodyText()),
          );
        } catch (error) {
          if (error instanceof BadRequestError) return { status: 400, text: error.message };
          throw error;
        }
        return undefined; // an empty 200
      },
    }),
  ),
  {
    method: 'DELETE',
    path: `${PREFIX}/:scope`,
    summary: 'Delete attributes by keys',
    handler({ core, device, params, query }) {
      const keys = keysParameter(query, 'keys');
      if (!keys?.length) throw new BadRequestError('Keys are required');
      const target = device(params.deviceId, 'WRITE_ATTRIBUTES');
      core.deleteAttributes(target, scopeOf(params.scope, false), keys);
    },
  },
];
