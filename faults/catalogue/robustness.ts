/**
 * Faults that break requirements of the robustness feature set (features/robustness/, issue 13).
 */
import type { FaultDefinition } from './definition';

export const ROBUSTNESS_FAULTS = [
  {
    id: 'ROB-SIZE-01:rpc-size-unchecked',
    breaks:
      'an RPC reply or client-side RPC body over the 64 KiB payload limit is read and handled instead of being answered 413',
  },
  {
    id: 'ROB-SIZE-02:packet-size-unchecked',
    breaks:
      'an MQTT packet over 65536 bytes is processed (its data stored) instead of ending the connection',
  },
  {
    id: 'ROB-SIZE-01:rpc-limit-exclusive',
    breaks: 'an RPC reply of exactly 65536 bytes, the limit itself, is refused with 413',
  },
  {
    id: 'ROB-SIZE-02:packet-limit-exclusive',
    breaks: 'an MQTT packet of exactly 65536 bytes, the limit itself, ends the connection',
  },
  {
    id: 'ROB-NEST-01:limit-off-by-one',
    breaks:
      'JSON nested exactly as deep as the limit (1000; 255 in the thingsboard-4.3 mode) is refused: the bound is taken as exclusive',
  },
  {
    id: 'ROB-NEST-01:no-depth-limit',
    breaks:
      'JSON nested deeper than 1000 levels is parsed and stored instead of being refused before anything is stored',
  },
  {
    id: 'ROB-UTF8-01:latin1-decoding',
    breaks:
      'an HTTP telemetry body is decoded as Latin-1: bytes that are not UTF-8 are stored as other characters instead of U+FFFD',
  },
  {
    id: 'ROB-UTF8-01:accepted-not-stored',
    breaks:
      'an HTTP telemetry body holding bytes that are not UTF-8 is answered 200 and nothing of it is stored (neither refused nor decoded)',
  },
  {
    id: 'ROB-SLOW-01:output-unbounded',
    breaks:
      'output for an MQTT client that does not read is queued without limit: the client is never disconnected',
  },
  {
    id: 'ROB-CONN-01:garbage-kept-open',
    breaks:
      'a connection that sends bytes which are not MQTT after its CONNECT is kept open instead of being closed',
  },
  {
    id: 'ROB-CONN-02:no-connect-timeout',
    breaks: 'a TCP connection that never sends CONNECT is kept open for ever',
  },
  {
    id: 'ROB-CONN-02:connect-deadline-restarts',
    breaks:
      'every byte received before the CONNECT restarts the CONNECT deadline: a CONNECT sent one byte at a time keeps the connection open for ever',
  },

  {
    id: 'ROB-POLL-01:busy-while-polls-held',
    breaks:
      'while 100 or more long-polls are held, every other device API request is answered 503 (as a server whose request threads the polls hold)',
  },
] as const satisfies readonly FaultDefinition[];
