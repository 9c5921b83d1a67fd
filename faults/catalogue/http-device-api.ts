/** Faults that break requirements of the http-device-api interface (features/http-device-api/). */
import type { FaultDefinition } from './definition';

export const HTTP_FAULTS = [
  {
    id: 'HTTP-GEN-01:https-device-api-missing',
    breaks:
      'the HTTPS listener answers every device API request 404: the device API is served over HTTP only',
  },
  {
    id: 'HTTP-VER-01:any-version-served',
    breaks: 'any /api/v<n>/ path (v2, v0, V1) is served as the v1 device API instead of 404',
  },
  {
    id: 'HTTP-AUTH-01:tokenless-path-served',
    breaks:
      'POST /api/v1/telemetry without a token segment is taken as the request of a demo device (200)',
  },
  {
    id: 'HTTP-AUTH-01:tokenless-path-401',
    breaks:
      'POST /api/v1/telemetry without a token segment is refused as an unknown token (401), not answered as a path with no endpoint (404)',
  },
  {
    id: 'HTTP-AUTH-01:token-case-folded',
    breaks:
      "the access token of the path is matched ignoring case, so another token than the device's is accepted",
  },
  {
    id: 'HTTP-TEL-01:epoch-timestamp',
    breaks:
      'telemetry in the object form is stored at ts 0, not at a timestamp the server assigned on arrival',
  },
  {
    id: 'HTTP-TEL-01:last-key-dropped',
    breaks: 'telemetry in the object form stores every key but the last one',
  },
  {
    id: 'HTTP-TEL-02:first-element-only',
    breaks: 'telemetry in the array form stores only its first element',
  },
  {
    id: 'HTTP-TEL-02:epoch-timestamp',
    breaks:
      'the plain elements of telemetry in the array form are stored at ts 0, not at a server timestamp',
  },
  {
    id: 'HTTP-TEL-02-EMPTY:empty-array-refused',
    breaks: 'telemetry [] is refused as a malformed payload',
  },
  {
    id: 'HTTP-TEL-03:device-ts-ignored',
    breaks: 'telemetry in the timestamped form is stored at the server time, not at its ts',
  },
  {
    id: 'HTTP-TEL-03:ts-as-seconds',
    breaks: 'the ts of the timestamped form is read as seconds (multiplied by 1000)',
  },
  {
    id: 'HTTP-ATTR-01:not-stored',
    breaks: 'POST attributes answers 200 and stores nothing',
  },
  {
    id: 'HTTP-ATTR-01:json-values-dropped',
    breaks: 'POST attributes stores every value but nested JSON ones, which are dropped silently',
  },
  {
    id: 'HTTP-ATTR-02:first-write-wins',
    breaks: 'a client-side attribute that exists is not updated by a later upload',
  },
  {
    id: 'HTTP-ATTR-03:client-keys-ignored',
    breaks:
      'GET attributes with clientKeys answers every client-side attribute, not only the requested ones',
  },
  {
    id: 'HTTP-ATTR-03:client-member-flattened',
    breaks:
      'GET attributes with clientKeys answers the client-side pairs at the top level, not in the client member',
  },
  {
    id: 'HTTP-ATTR-04:shared-keys-ignored',
    breaks:
      'GET attributes with sharedKeys answers every shared attribute, not only the requested ones',
  },
  {
    id: 'HTTP-ATTR-04:shared-read-from-server-scope',
    breaks: 'GET attributes with sharedKeys answers server-side attributes in the shared member',
  },
  {
    id: 'HTTP-ATTR-05:shared-overwrites-client',
    breaks:
      'a shared attribute saved by the platform also overwrites the client-side attribute of the same key',
  },
  {
    id: 'HTTP-ATTR-05:server-write-dropped',
    breaks:
      'a server-side attribute saved through the administration API is answered 200 and never stored',
  },
  {
    id: 'HTTP-UPD-01:update-not-delivered',
    breaks: 'a shared attribute change does not answer a waiting attributes/updates poll',
  },
  {
    id: 'HTTP-UPD-01:values-as-strings',
    breaks: 'the attributes/updates answer carries every value as a JSON string',
  },
  {
    id: 'HTTP-UPD-01:unchanged-keys-included',
    breaks:
      'the attributes/updates answer carries every shared attribute of the device, not only the changed ones',
  },
  {
    id: 'HTTP-UPD-01:answered-twice',
    breaks:
      'one shared attribute change answers the next attributes/updates poll of the device as well',
  },
  {
    id: 'HTTP-UPD-01:no-timeout-ends-at-once',
    breaks:
      'attributes/updates without the optional timeout parameter ends at once with 408 instead of waiting the default',
  },
  {
    id: 'HTTP-UPD-02:timeout-ignored',
    breaks: 'attributes/updates ignores its timeout parameter and waits the default 60 s',
  },
  {
    id: 'HTTP-UPD-02:early-timeout',
    breaks: 'attributes/updates answers 408 after a quarter of its timeout',
  },
  {
    id: 'HTTP-UPD-02:timeout-with-body',
    breaks: 'attributes/updates answers its timeout with 408 and a JSON body, not an empty one',
  },
  {
    id: 'HTTP-RPC-01:params-dropped',
    breaks: 'GET rpc answers {id, method} without the params of the RPC',
  },
  {
    id: 'HTTP-RPC-01:id-as-string',
    breaks: 'GET rpc answers the RPC id as a JSON string, not an integer',
  },
  {
    id: 'HTTP-RPC-01:queued-not-delivered',
    breaks: 'an RPC sent while the device is not polling is not delivered at its next poll',
  },
  {
    id: 'HTTP-RPC-01:no-timeout-ends-at-once',
    breaks:
      'GET rpc without the optional timeout parameter ends at once with 408 instead of waiting the default',
  },
  {
    id: 'HTTP-RPC-02:timeout-ignored',
    breaks: 'GET rpc ignores its timeout parameter and waits the default 60 s',
  },
  {
    id: 'HTTP-RPC-02:early-timeout',
    breaks: 'GET rpc answers 408 after a quarter of its timeout',
  },
  {
    id: 'HTTP-RPC-02:timeout-with-body',
    breaks: 'GET rpc answers its timeout with 408 and a JSON body, not an empty one',
  },
  {
    id: 'HTTP-RPC-03:reply-ignored',
    breaks:
      'POST rpc/{id} answers 200 and relays nothing: the requester waits until the RPC times out',
  },
  {
    id: 'HTTP-RPC-03:reply-retyped',
    breaks:
      'the reply is relayed re-serialized through doubles: 21.0 becomes 21 and a long past 2^53 is rounded',
  },
  {
    id: 'HTTP-RPC-04:empty-answer',
    breaks:
      "POST rpc (client-side RPC) answers 200 with an empty body, not the handler's JSON document",
  },
  {
    id: 'HTTP-RPC-04:text-answer',
    breaks: 'POST rpc (client-side RPC) answers with plain text that is not a JSON document',
  },
  {
    id: 'HTTP-RPC-05:one-way-not-delivered',
    breaks: 'a one-way RPC is never delivered through GET rpc (only two-way ones are)',
  },
  {
    id: 'HTTP-RPC-05:one-way-delivered-twice',
    breaks: 'a delivered one-way RPC stays queued and is delivered again at the next poll',
  },
  {
    id: 'HTTP-CLAIM-01:secret-not-checked',
    breaks: 'a customer claims a device registered for claiming with any secret key',
  },
  {
    id: 'HTTP-CLAIM-01:not-registered',
    breaks: 'POST claim answers 200 and registers nothing',
  },
  {
    id: 'HTTP-CLAIM-02:missing-secret-is-null',
    breaks: 'a claim without secretKey registers the secret key "null", not the empty string',
  },
  {
    id: 'HTTP-CLAIM-03:short-claim-not-registered',
    breaks:
      'a claim whose durationMs is under one second is answered 200 and registers nothing (a registration that "ends" at once)',
  },
  {
    id: 'HTTP-CLAIM-03:duration-ignored',
    breaks: 'a claim registration with durationMs lasts device.claim.duration instead',
  },
  {
    id: 'HTTP-CLAIM-03:duration-as-seconds',
    breaks: 'durationMs is read as seconds, so a 400 ms registration lasts 400 s',
  },
  {
    id: 'HTTP-CLAIM-04:ten-year-default',
    breaks: 'a claim without durationMs lasts ten years, not device.claim.duration',
  },
  {
    id: 'HTTP-CLAIM-04:no-default',
    breaks:
      'a claim without durationMs ends at once (a duration of 0), not after device.claim.duration',
  },
  {
    id: 'HTTP-PROV-01:device-not-created',
    breaks:
      'provisioning with valid credentials answers SUCCESS with a token but creates no device',
  },
  {
    id: 'HTTP-PROV-01:other-credentials',
    breaks:
      "provisioning that creates a device answers credentials that are not the new device's access token",
  },
  {
    id: 'HTTP-PROV-02:pre-provisioned-refused',
    breaks: 'provisioning a pre-provisioned device (CHECK_PRE_PROVISIONED_DEVICES) answers FAILURE',
  },
  {
    id: 'HTTP-PROV-02:other-credentials',
    breaks:
      "provisioning a pre-provisioned device answers a fresh token, not the device's own credentials",
  },
  {
    id: 'HTTP-PROV-03:secret-not-checked',
    breaks: 'provisioning with the right key and a wrong secret provisions the device',
  },
  {
    id: 'HTTP-PROV-03:refused-created-late',
    breaks:
      'provisioning with a wrong secret answers NOT_FOUND, and the device is created 20 ms later anyway (after the answer)',
  },
  {
    id: 'HTTP-PROV-03:disabled-ignored',
    breaks: 'a profile whose provisioning is DISABLED provisions devices as if it allowed new ones',
  },
  {
    id: 'HTTP-PROV-04:token-required',
    breaks:
      'POST /api/v1/provision answers 401 without a device token: provisioning is not authenticated by the body',
  },
  {
    id: 'HTTP-PROV-05:device-name-optional',
    breaks: 'a provisioning request without deviceName proceeds with a made-up name instead of 400',
  },
  {
    id: 'HTTP-PROV-05:key-optional',
    breaks:
      'a provisioning request without provisionDeviceKey is answered 200 NOT_FOUND instead of 400',
  },
  {
    id: 'HTTP-PROV-05:secret-optional',
    breaks:
      'a provisioning request without provisionDeviceSecret is answered 200 NOT_FOUND instead of 400',
  },
  {
    id: 'HTTP-FW-01:last-byte-missing',
    breaks: 'GET firmware answers the whole package without its last byte',
  },
  {
    id: 'HTTP-FW-01:chunks-off-by-one',
    breaks: 'GET firmware with size and chunk answers the chunk after the one asked for',
  },
  {
    id: 'HTTP-FW-02:checksum-missing',
    breaks:
      'starting a firmware update sets fw_title, fw_version and fw_checksum_algorithm but not fw_checksum',
  },
  {
    id: 'HTTP-FW-02:title-missing',
    breaks: 'starting a firmware update sets every firmware shared attribute but fw_title',
  },
  {
    id: 'HTTP-ERR-01:malformed-json-500',
    breaks: 'a request body that is not JSON is answered 500, not 400',
  },
  {
    id: 'HTTP-ERR-01:valid-elements-stored',
    breaks:
      'telemetry in the array form stores its valid elements before an invalid one is refused with 400',
  },
  {
    id: 'HTTP-ERR-01:nulls-dropped',
    breaks:
      'a null value in telemetry or attributes is dropped silently and the rest stored (200), not refused',
  },
  {
    id: 'HTTP-ERR-02:invalid-parameter-500',
    breaks:
      'an invalid query parameter (timeout=abc, a firmware request without version) is answered 500, not 400',
  },
  {
    id: 'HTTP-ERR-02:negative-timeout-accepted',
    breaks:
      'a negative long-poll timeout is taken as the default timeout instead of refused with 400',
  },
  {
    id: 'HTTP-ERR-03:non-integer-rpc-id-accepted',
    breaks: 'POST rpc/{id} with an id that is not an integer is answered 200, not 400',
  },
  {
    id: 'HTTP-ERR-04:unknown-token-403',
    breaks: 'an unknown access token is answered 403, not 401',
  },
  {
    id: 'HTTP-ERR-04:long-poll-unknown-token-waits',
    breaks:
      'a long-poll with an unknown access token waits for its timeout (408) instead of answering 401',
  },
  {
    id: 'HTTP-ERR-05:unknown-resource-400',
    breaks: 'an unknown resource of the device API is answered 400, not 404',
  },
  {
    id: 'HTTP-ERR-05:no-package-empty-200',
    breaks:
      'GET firmware for a device without an assigned package answers 200 with an empty body, not 404',
  },
  {
    id: 'HTTP-ERR-05:trailing-slash-matches',
    breaks:
      'a device API path with a trailing slash is routed to the endpoint without it, not answered 404',
  },
] as const satisfies readonly FaultDefinition[];
