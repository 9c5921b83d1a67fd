/** Faults that break requirements of the key-value-data interface (features/key-value-data/). */
import type { FaultDefinition } from './definition';

export const KV_FAULTS = [
  {
    id: 'KV-01:keys-lowercased',
    breaks:
      'a key a device sends is stored in lower case, so "Temperatur Außen" reads back as "temperatur außen"',
  },
  {
    id: 'KV-01:keys-trimmed',
    breaks:
      'a key a device sends is stored with surrounding spaces removed, so " a" reads back as "a"',
  },
  {
    id: 'KV-02:numeric-strings-cast',
    breaks:
      'a string value that reads as a number ("42") is stored as a LONG or DOUBLE, not as a STRING',
  },
  {
    id: 'KV-03:booleans-as-strings',
    breaks: 'a boolean value is stored as the STRING "true" or "false"',
  },
  {
    id: 'KV-04:integral-doubles-as-longs',
    breaks: 'a double with an integral value (42.0) is stored as the LONG 42',
  },
  {
    id: 'KV-04:single-precision',
    breaks:
      'a double is stored in single precision, so -0.001 reads back as -0.0010000000474974513',
  },
  {
    id: 'KV-05:longs-rounded',
    breaks:
      'a long passes through a double and loses its low digits past 2^53 (9223372036854775807 is rounded)',
  },
  {
    id: 'KV-05:negative-longs-as-doubles',
    breaks: 'a negative long is stored as a DOUBLE',
  },
  {
    id: 'KV-06:nested-nulls-dropped',
    breaks: 'null members and elements inside a JSON value are dropped before it is stored',
  },
  {
    id: 'KV-06:json-arrays-refused',
    breaks: 'a JSON value that is an array is refused with 400 (only objects are taken as JSON)',
  },
] as const satisfies readonly FaultDefinition[];
