/**
 * Whether a run exercised the defaults its requirements state (issue 25). A requirement that states
 * a default of a rest.json member names in the catalogue (`defaultOmittedIn`) the objects of the
 * conformance file that omit the member: its scenarios pass on the default only while the
 * configuration the target really loads omits it too. A real gateway runs the file `iotc
 * gateway-config` wrote (members added for a version without those defaults), an embedded target
 * the conformance file as src/target/embedded-connector.ts materializes it. Where that effective
 * configuration names the member, the default never ran: unless the target declares a deviation for
 * the requirement (its own scenario verifies what the target does instead), the requirement is NOT
 * TESTED, and the reason says which member the configuration names.
 */
import { readFileSync } from 'node:fs';
import type { Requirement, TargetProfile } from '../../schemas';
import { gatewayReadyRest } from '../../lib/gateway-rest';
import { connectorQuirks } from '../../simulators/connector/quirks';
import type { ConnectorQuirksMode } from '../../simulators/connector';
import { EMBEDDED_REST_FILE, EMBEDDED_REST_SPARSE_FILE } from './embedded-rest-file';

type Json = Record<string, unknown>;

/**
 * The opening of the reason of a requirement whose default the run did not exercise (report merge
 * keeps it).
 */
export const DEFAULT_NOT_EXERCISED = 'default not exercised';

/**
 * The conformance rest.json as an embedded connector in `quirks` mode loads it, before the run's
 * addresses: a quirks mode that needs members the conformance file leaves to defaults runs the file
 * iotc gateway-config writes for that gateway, as the real one does.
 */
export function embeddedRestConfig(quirks: ConnectorQuirksMode | undefined): Json {
  const conformance = JSON.parse(readFileSync(EMBEDDED_REST_FILE, 'utf8')) as Json;
  return quirks && connectorQuirks(quirks).requiresGatewayMembers
    ? gatewayReadyRest(conformance)
    : conformance;
}

/**
 * The second conformance file (every optional section left out) as an embedded connector in
 * `quirks` mode loads it.
 */
export function embeddedRestSparseConfig(quirks: ConnectorQuirksMode | undefined): Json {
  const sparse = JSON.parse(readFileSync(EMBEDDED_REST_SPARSE_FILE, 'utf8')) as Json;
  return quirks && connectorQuirks(quirks).requiresGatewayMembers
    ? gatewayReadyRest(sparse)
    : sparse;
}

/**
 * The destinations the defaults of outgoing calls reach (docs/reference/interfaces.md:
 * sensor/${deviceName}/${attributeKey}, which gets http:// in front as rest-connector-facts §8
 * says, so host sensor and port 80; http://127.0.0.1:5001/ ${deviceName}). An embedded connector's
 * network delivers them to its external API (embedded-connector.ts).
 */
export const EMBEDDED_ROUTES = ['sensor:80', '127.0.0.1:5001'] as const;

/**
 * The destination a requirement's default calls, which the target's network must deliver to the
 * external API.
 */
const DEFAULT_DESTINATIONS: Readonly<Record<string, string>> = {
  'RC-AUPD-11': 'sensor:80',
  'RC-RPC-04': '127.0.0.1:5001',
};

/**
 * The destinations the target's network delivers to the external API (profile
 * connector.routedDestinations).
 */
export function routedDestinations(profile: TargetProfile): ReadonlySet<string> {
  return new Set(
    profile.embedded ? EMBEDDED_ROUTES : (profile.connector?.routedDestinations ?? []),
  );
}

/**
 * The rest.json the target loads: the profile's connector.configFile, or for an embedded target the
 * conformance file as its connector gets it (server.port left to its default, published at a free
 * host port). Undefined when the target has no connector.
 */
export function effectiveRestConfig(profile: TargetProfile): Json | undefined {
  if (profile.embedded)
    return embeddedRestConfig(profile.connectorQuirks as ConnectorQuirksMode | undefined);
  if (!profile.connector?.configFile) return undefined;
  return JSON.parse(readFileSync(profile.connector.configFile, 'utf8')) as Json;
}

/**
 * The value at a path such as `mapping[2].converter.deviceInfo`, or undefined when any step is
 * missing.
 */
export function atPath(config: unknown, path: string): unknown {
  let value: unknown = config;
  for (const step of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (value === null || typeof value !== 'object') return undefined;
    const index = /^\[(\d+)\]$/.exec(step);
    value = index
      ? Array.isArray(value)
        ? value[Number(index[1])]
        : undefined
      : (value as Json)[step];
  }
  return value;
}

/**
 * Why each requirement's default was not exercised on this target: requirement id to the reason,
 * for those whose `defaultOmittedIn` object is missing from the effective configuration or names
 * the member, or whose default calls a destination the target's network does not deliver to the
 * external API (`routed`; its scenario is skipped). Requirements the target declares a deviation
 * for are left out (their own scenarios decide).
 */
export function defaultsNotExercised(
  catalogue: readonly Requirement[],
  config: Json | undefined,
  deviations: ReadonlySet<string>,
  routed: ReadonlySet<string> = new Set(EMBEDDED_ROUTES),
): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const requirement of catalogue) {
    if (!requirement.defaultOmittedIn || deviations.has(requirement.id)) continue;
    if (!config) {
      reasons.set(
        requirement.id,
        `${DEFAULT_NOT_EXERCISED}: the target names no REST connector configuration`,
      );
      continue;
    }
    const problems = requirement.defaultOmittedIn.flatMap(({ object, member }) => {
      const found = atPath(config, object);
      if (found === null || typeof found !== 'object') return [`has no ${object}`];
      return (found as Json)[member] === undefined ? [] : [`names ${object}.${member}`];
    });
    const destination = DEFAULT_DESTINATIONS[requirement.id];
    if (problems.length)
      reasons.set(
        requirement.id,
        `${DEFAULT_NOT_EXERCISED}: the configuration the target loads ${problems.join(', ')}`,
      );
    else if (destination && !routed.has(destination))
      reasons.set(
        requirement.id,
        `${DEFAULT_NOT_EXERCISED}: the target profile's connector.routedDestinations does not name ${destination}, where the default calls`,
      );
  }
  return reasons;
}

/**
 * A verdict that rests on a default the run did not exercise is NOT TESTED with that reason (a NOT
 * TESTED takes that reason too: its default's scenario was skipped); FAIL, INCONCLUSIVE and the
 * other verdicts stand, and so does the reason of a requirement the catalogue marks not testable
 * (seen: RC-AREQ-05 on tb-gateway-3.8 read "default not exercised" instead of why it cannot be
 * tested).
 */
export function withUnexercisedDefaults<T extends { id: string; verdict: string; reason?: string }>(
  results: readonly T[],
  reasons: ReadonlyMap<string, string>,
): T[] {
  return results.map((result) => {
    const reason = reasons.get(result.id);
    const untestable = result.verdict === 'NOT TESTED' && result.reason?.startsWith('not testable');
    return reason && !untestable && (result.verdict === 'PASS' || result.verdict === 'NOT TESTED')
      ? { ...result, verdict: 'NOT TESTED', reason }
      : result;
  });
}
