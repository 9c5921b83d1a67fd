/**
 * POST /api/v1/{token}/claim: optional {secretKey, durationMs}; an empty body is allowed. 200,
 * empty body.
 */
import { claimSchema } from '../../../schemas';
import { MAX_BODY, authenticate, endpoint } from './context';
import { readBody, sendEmpty } from './exchange';
import { parseValid } from '../core/payloads';

export const POST_CLAIM = endpoint({
  steps: {},
  handle: async (exchange, steps) => {
    const { request, response, api } = exchange;
    const device = authenticate(exchange, steps);
    if (!device) return;
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    const claim = text.trim() === '' ? {} : parseValid(text, claimSchema, 'claim');
    const durationMs =
      claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
    // registered after the 200 (core/scheduler.ts), as ThingsBoard queues the claim to the device
    // actor
    api.core.scheduler.later('claim', () =>
      api.core.registerClaim(device, claim.secretKey, durationMs),
    );
    sendEmpty(response, 200);
  },
});
