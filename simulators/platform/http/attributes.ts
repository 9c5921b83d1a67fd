/**
 * Client-side attributes: POST /api/v1/{token}/attributes stores a JSON object in CLIENT scope; GET
 * answers {"client":{...},"shared":{...}}, a member present only when it has matches. With neither
 * clientKeys nor sharedKeys: every client and shared attribute; with one of them: only that scope.
 * Values keep their JSON type.
 */
import { stringifyLossless, type TypedValue } from '../../../lib/kv/values';
import { attributesAnswer } from '../core/render';
import type { Device } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import { MAX_BODY, authenticate, endpoint, payloadFailure } from './context';
import { keysParameter, queryOf, readBody, sendEmpty, sendJsonText } from './exchange';
import { runPayloadJobSoon } from '../core/off-thread';

type Entries = Array<[string, TypedValue]>;

export const POST_ATTRIBUTES = endpoint({
  steps: {
    /** The entries of the body that are stored: all of them. */
    kept: (_device: Device, entries: Entries): Entries => entries,
    /**
     * Stores them in CLIENT scope, after the 200 (core/scheduler.ts), as ThingsBoard's rule engine
     * does.
     */
    save: (core: PlatformCore, device: Device, entries: Entries): void =>
      core.scheduler.later('save', () => core.saveAttributes(device, 'CLIENT_SCOPE', entries)),
  },
  handle: async (exchange, steps) => {
    const { request, response, api } = exchange;
    const device = authenticate(exchange, steps);
    if (!device) return;
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    try {
      const entries = (await runPayloadJobSoon({
        kind: 'client-attributes',
        text,
        quirks: api.quirks,
      })) as Entries;
      steps.save(api.core, device, steps.kept(device, entries));
    } catch (error) {
      if (payloadFailure(error, response, api)) return;
      throw error;
    }
    sendEmpty(response, 200);
  },
});

/** What GET attributes asked for: the keys of each scope (undefined: not asked). */
export interface AttributesQuery {
  readonly clientKeys: string[] | undefined;
  readonly sharedKeys: string[] | undefined;
}

export const GET_ATTRIBUTES = endpoint({
  steps: {
    /** The answer: {client, shared}, a member present only when it has matches. */
    answer: (
      device: Device,
      { clientKeys, sharedKeys }: AttributesQuery,
    ): Record<string, unknown> => attributesAnswer(device, clientKeys, sharedKeys),
  },
  handle: (exchange, steps) => {
    const { request, response } = exchange;
    const query = queryOf(request.url);
    const device = authenticate(exchange, steps);
    if (!device) return;
    // a blank parameter (`clientKeys=`) is no parameter, as ThingsBoard's DeviceApiController reads
    // it
    const asked: AttributesQuery = {
      clientKeys: nonEmpty(keysParameter(query, 'clientKeys')),
      sharedKeys: nonEmpty(keysParameter(query, 'sharedKeys')),
    };
    sendJsonText(response, 200, stringifyLossless(steps.answer(device, asked)));
  },
});

function nonEmpty(keys: string[] | undefined): string[] | undefined {
  return keys?.length ? keys : undefined;
}
