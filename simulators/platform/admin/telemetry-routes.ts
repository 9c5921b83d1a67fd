/**
 * Time series and attributes of a device (prefix /api/plugins/telemetry;
 * docs/reference/platform-facts.md §8).
 */
import {
  stringifyLossless,
  typedValueToLossless,
  typedValueToString,
  type TypedValue,
} from '../../../lib/kv/values';
import { telemetrySchema } from '../../../schemas';
import { BadRequestError } from '../core/errors';
import { ATTRIBUTE_SCOPES, type AttributeScope, type Device } from '../core/model';
import { keysParameter } from '../http/exchange';
import { runPayloadJobSoon } from '../core/off-thread';
import { historyOf, type TelemetryRecord } from '../core/time-series';
import { NO_QUIRKS } from '../quirks';
import type { AdminRoute } from './route';

const PREFIX = '/api/plugins/telemetry/DEVICE/:deviceId';
const LEGACY_PREFIX = '/api/plugins/telemetry/:deviceId/:scope';

/**
 * A boolean query parameter as Spring reads it (StringToBooleanConverter: true/on/yes/1 and
 * false/off/no/0, any case): ThingsBoard's Python REST client sends `True`. Absent or unreadable:
 * the fallback.
 */
function booleanParameter(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', 'on', 'yes', '1'].includes(value)) return true;
  if (['false', 'off', 'no', '0'].includes(value)) return false;
  return fallback;
}

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

export const telemetryRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: `${PREFIX}/values/timeseries`,
    summary:
      'Latest time series values, or the history with startTs and endTs; strings unless useStrictDataTypes=true',
    handler: ({ device, params, query }) =>
      timeseriesOut(
        device(params.deviceId, 'READ_TELEMETRY'),
        query,
        query.get('startTs') !== null || query.get('endTs') !== null,
      ),
  },
  {
    // TelemetryController 338-370 (getTimeseriesHistory): startTs and endTs are required request
    // parameters
    method: 'GET',
    path: `${PREFIX}/values/timeseries/history`,
    summary: 'The history of time series keys in [startTs, endTs] (both required); limit, orderBy',
    handler({ device, params, query }) {
      for (const name of ['startTs', 'endTs'])
        if (query.get(name) === null)
          throw new BadRequestError(
            `Required request parameter '${name}' for method parameter type Long is not present`,
          );
      return timeseriesOut(device(params.deviceId, 'READ_TELEMETRY'), query, true);
    },
  },
  {
    // TelemetryController 517-590 (deleteEntityTimeseries): keys required ("Empty keys"); without
    // deleteAllDataForKeys=true both startTs and endTs; deleteLatest defaults to true,
    // rewriteLatestIfDeleted to false
    method: 'DELETE',
    path: `${PREFIX}/timeseries/delete`,
    summary:
      'Delete time series of keys: all (deleteAllDataForKeys=true) or in [startTs, endTs); deleteLatest, rewriteLatestIfDeleted',
    handler({ core, device, params, query }) {
      const target = device(params.deviceId, 'WRITE_TELEMETRY');
      const keys = keysParameter(query, 'keys') ?? query.getAll('key');
      if (keys.length === 0) return { status: 400, text: `Empty keys: [${keys.join(', ')}]` };
      const all = booleanParameter(query, 'deleteAllDataForKeys', false);
      const startTs = all ? 0 : Number(query.get('startTs') ?? Number.NaN);
      const endTs = all ? Date.now() : Number(query.get('endTs') ?? Number.NaN);
      if (!Number.isFinite(startTs) || !Number.isFinite(endTs))
        return {
          status: 400,
          text: "When deleteAllDataForKeys is false, start and end timestamp values shouldn't be empty",
        };
      core.deleteTimeseries(target, keys, {
        startTs,
        endTs,
        deleteLatest: booleanParameter(query, 'deleteLatest', true),
        rewriteLatestIfDeleted: booleanParameter(query, 'rewriteLatestIfDeleted', false),
      });
      return undefined; // an empty 200
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
    // TelemetryController 176-181 (getAttributeKeys): the key names of every scope, merged
    method: 'GET',
    path: `${PREFIX}/keys/attributes`,
    summary: 'The attribute keys of a device, all scopes merged',
    handler({ device, params }) {
      const target = device(params.deviceId, 'READ_ATTRIBUTES');
      const keys = new Set<string>();
      for (const scope of ATTRIBUTE_SCOPES)
        for (const key of target.attributes[scope].keys()) keys.add(key);
      return { json: [...keys] };
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
  // the legacy /api/plugins/telemetry/{deviceId}/{scope} (TelemetryController 383-405,
  // saveDeviceAttributes), which ThingsBoard's REST client still calls, saves as the entity-typed
  // routes
  ...[`${PREFIX}/:scope`, `${PREFIX}/attributes/:scope`, LEGACY_PREFIX].map(
    (path): AdminRoute => ({
      method: 'POST',
      path,
      summary: 'Save SHARED_SCOPE or SERVER_SCOPE attributes; shared changes reach the device',
      async handler({ core, device: deviceFor, params, bodyText }) {
        const device = deviceFor(params.deviceId, 'WRITE_ATTRIBUTES');
        try {
          // parsed like a device's attributes: a large body on the payload worker
          // (core/off-thread.ts)
          const entries = await runPayloadJobSoon({
            kind: 'server-attributes',
            text: await bodyText(),
          });
          core.saveAttributes(
            device,
            scopeOf(params.scope, true),
            entries as Array<[string, TypedValue]>,
          );
        } catch (error) {
          if (error instanceof BadRequestError) return { status: 400, text: error.message };
          throw error;
        }
        return undefined; // an empty 200
      },
    }),
  ),
  // and the legacy DELETE /api/plugins/telemetry/{deviceId}/{scope} (TelemetryController 601-612)
  ...[`${PREFIX}/:scope`, LEGACY_PREFIX].map(
    (path): AdminRoute => ({
      method: 'DELETE',
      path,
      summary: 'Delete attributes by keys',
      handler({ core, device, params, query }) {
        const keys = keysParameter(query, 'keys');
        if (!keys?.length) throw new BadRequestError('Keys are required');
        const target = device(params.deviceId, 'WRITE_ATTRIBUTES');
        core.deleteAttributes(target, scopeOf(params.scope, false), keys);
      },
    }),
  ),
];

/** Latest values of the keys (all when none is named), or their history in [startTs, endTs]. */
function timeseriesOut(device: Device, query: URLSearchParams, history: boolean) {
  const strict = booleanParameter(query, 'useStrictDataTypes', false);
  const keys = keysParameter(query, 'keys') ??
    keysParameter(query, 'key') ?? [...device.latest.keys()];
  const out: Record<string, Array<{ ts: number; value: unknown }>> = {};
  if (history) {
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
}
