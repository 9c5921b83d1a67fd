/**
 * GET /api/v1/{token}/attributes/updates?timeout=ms: the first shared-attribute change after the
 * poll began, changed keys flattened at the top level plus "deleted":[keys]; 408 empty at the
 * timeout.
 */
import { stringifyLossless } from '../../../lib/kv/values';
import type { Device } from '../core/model';
import { sharedChangeDocument } from '../core/render';
import type { SharedAttributesChange } from '../core/event-hub';
import type { PlatformCore } from '../core/platform-core';
import { authenticate, endpoint } from './context';
import { sendJsonText, sendText } from './exchange';
import { longPoll, longPollTimeout } from './long-poll';

export const DEVICE_DELETED = 'Device was deleted!';

export const GET_ATTRIBUTE_UPDATES = endpoint({
  steps: {
    /**
     * An answer the poll gives before it waits: none (a change is answered once, to the poll it
     * happened during).
     */
    earlier: (_device: Device): string | undefined => undefined,
    /** Listens for the device's next shared-attribute change; returns the unsubscriber. */
    subscribe: (
      core: PlatformCore,
      device: Device,
      changed: (change: SharedAttributesChange) => void,
    ): (() => void) => core.on(device, 'shared', changed),
    /** The change as the device receives it: the changed keys and the deleted ones. */
    change: (_device: Device, change: SharedAttributesChange): SharedAttributesChange => change,
    /** The answer's text, {"k":v,...,"deleted":[...]} with each value in its JSON type. */
    render: (_device: Device, change: SharedAttributesChange): string =>
      stringifyLossless(sharedChangeDocument(change)),
  },
  handle: (exchange, steps) => {
    const { request, response, api } = exchange;
    const timeoutMs = longPollTimeout(request, api.quirks, steps);
    const device = authenticate(exchange, steps, timeoutMs);
    if (!device) return;
    const earlier = steps.earlier(device);
    if (earlier !== undefined) return sendJsonText(response, 200, earlier);
    const answer = (change: SharedAttributesChange) =>
      sendJsonText(response, 200, steps.render(device, steps.change(device, change)));
    longPoll(
      response,
      steps.pollWaitMs(timeoutMs),
      (finish) => [
        steps.subscribe(api.core, device, (change) => finish(() => answer(change))),
        api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
      ],
      steps.pollTimedOut,
    );
  },
});
