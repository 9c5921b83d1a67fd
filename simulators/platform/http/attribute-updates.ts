/**
 * GET /api/v1/{token}/attributes/updates?timeout=ms: the first shared-attribute change after the poll began,
 * changed keys flattened at the top level plus "deleted":[keys]; 408 empty at the timeout.
 */
import { stringifyLossless, typedValueToString } from '../../../lib/kv/values';
import { faultActive } from '../../../faults';
import type { Device } from '../core/model';
import { sharedChangeDocument } from '../core/render';
import type { SharedAttributesChange } from '../core/event-hub';
import { authenticate, type DeviceHandler } from './context';
import { sendJsonText, sendText } from './exchange';
import { longPoll, longPollTimeout } from './long-poll';

export const DEVICE_DELETED = 'Device was deleted!';

/** Planted fault HTTP-UPD-01:answered-twice: the last change each device's poll was answered with. */
const lastAnswered = new WeakMap<Device, string>();

export const getAttributeUpdates: DeviceHandler = (request, response, params, api) => {
  const timeoutMs = longPollTimeout(request, api.quirks);
  const device = authenticate(api, params, request, response, timeoutMs);
  if (!device) return;
  const answeredTwice = faultActive('HTTP-UPD-01:answered-twice');
  const repeated = answeredTwice && lastAnswered.get(device);
  if (repeated) return sendJsonText(response, 200, repeated);
  const answer = (change: SharedAttributesChange) => {
    const body = renderChange(faultyChange(device, change));
    if (answeredTwice) lastAnswered.set(device, body); // kept only while the fault is on
    return sendJsonText(response, 200, body);
  };
  longPoll(
    response,
    timeoutMs,
    (finish) => [
      faultActive('HTTP-UPD-01:update-not-delivered')
        ? () => {}
        : api.core.on(device, 'shared', (change) => finish(() => answer(change))),
      api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
    ],
    {
      ignored: faultActive('HTTP-UPD-02:timeout-ignored'),
      early: faultActive('HTTP-UPD-02:early-timeout'),
      withBody: faultActive('HTTP-UPD-02:timeout-with-body'),
    },
  );
};

/** The change as planted faults (faults/) distort it: values as strings, or every shared attribute as changed. */
function faultyChange(device: Device, change: SharedAttributesChange): SharedAttributesChange {
  let updated = change.updated;
  if (faultActive('HTTP-UPD-01:unchanged-keys-included'))
    updated = new Map([...device.attributes.SHARED_SCOPE, ...updated]);
  if (faultActive('HTTP-UPD-01:values-as-strings'))
    updated = new Map(
      [...updated].map(([key, attribute]) => [
        key,
        { ...attribute, value: { type: 'STRING', value: typedValueToString(attribute.value) } },
      ]),
    );
  return { ...change, updated };
}

/** {"k":v,...,"deleted":[...]} with each value in its JSON type. */
function renderChange(change: SharedAttributesChange): string {
  return stringifyLossless(sharedChangeDocument(change));
}
