/**
 * GET /api/v1/{token}/attributes/updates?timeout=ms: the first shared-attribute change after the poll began,
 * changed keys flattened at the top level plus "deleted":[keys]; 408 empty at the timeout.
 */
import { stringifyLossless } from '../../../src/kv/values';
import { sharedChangeDocument } from '../core/render';
import type { SharedAttributesChange } from '../core/event-hub';
import { authenticate, type DeviceHandler } from './context';
import { sendJsonText, sendText } from './exchange';
import { longPoll, longPollTimeout } from './long-poll';

export const DEVICE_DELETED = 'Device was deleted!';

export const getAttributeUpdates: DeviceHandler = (request, response, params, api) => {
  const timeoutMs = longPollTimeout(request);
  const device = authenticate(api, params, request, response);
  if (!device) return;
  longPoll(response, timeoutMs, (finish) => [
    api.core.on(device, 'shared', (change) =>
      finish(() => sendJsonText(response, 200, renderChange(change))),
    ),
    api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
  ]);
};

/** {"k":v,...,"deleted":[...]} with each value in its JSON type. */
export function renderChange(change: SharedAttributesChange): string {
  return stringifyLossless(sharedChangeDocument(change));
}
