/**
 * The payload conversions that may run on the payload worker (off-thread.ts): pure functions of the
 * body text, so the same code gives the same answer on either thread. A worker's result crosses
 * back as JSON text: one string is copied in one piece, where a tree of small objects is cloned
 * object by object on the receiving thread (for a 3 MB body that clone alone held the event loop
 * for half a second).
 */
import { parseLossless, type TypedValue } from '../../../lib/kv/values';
import { BadRequestError } from './errors';
import { clientAttributesSchema } from '../../../schemas';
import type { Quirks } from '../quirks';
import { parseJson, parseValid, telemetryEntries, typedEntries } from './payloads';
import type { TelemetryRecord } from './time-series';

export type PayloadJob =
  | { kind: 'telemetry'; text: string; now: number; quirks: Quirks }
  | { kind: 'client-attributes'; text: string; quirks: Quirks }
  /** The admin API's attributes (SERVER_SCOPE, SHARED_SCOPE): any JSON object, kept lossless. */
  | { kind: 'server-attributes'; text: string }
  /**
   * Any other admin-API JSON body (admin/route.ts bodyJson): parsed with the depth check, the
   * document itself.
   */
  | { kind: 'json'; text: string; what: string };

export type PayloadJobResult = TelemetryRecord[] | Array<[string, TypedValue]> | unknown;

export function runPayloadJob(job: PayloadJob): PayloadJobResult {
  switch (job.kind) {
    case 'telemetry':
      return telemetryEntries(job.text, job.now, job.quirks);
    case 'client-attributes':
      return typedEntries(
        parseValid(job.text, clientAttributesSchema, 'attributes', job.quirks),
        job.quirks,
      );
    case 'server-attributes':
      return attributesToSave(job.text);
    case 'json':
      return parseJson(job.text, job.what);
  }
}

/**
 * Top-level members (or elements) of a JSON document per slice of its encoding (encodeResult, kind
 * json).
 */
const JSON_SLICE = 2000;

/**
 * A parsed JSON document as the worker sends it back: ['v', text] for a scalar or a small document,
 * else its top-level members (an object, 'o') or elements (an array, 'a') in slices of JSON_SLICE,
 * each slice its own JSON text, so that the event loop reads one slice per turn and serves other
 * clients between two (decodeResult).
 */
function encodeDocument(document: unknown): string {
  if (document === null || typeof document !== 'object')
    return JSON.stringify(['v', JSON.stringify(document)]);
  const slices: string[] = [];
  if (Array.isArray(document)) {
    for (let start = 0; start < document.length; start += JSON_SLICE)
      slices.push(JSON.stringify(document.slice(start, start + JSON_SLICE)));
    return JSON.stringify(['a', slices]);
  }
  const entries = Object.entries(document);
  for (let start = 0; start < entries.length; start += JSON_SLICE)
    slices.push(JSON.stringify(entries.slice(start, start + JSON_SLICE)));
  return JSON.stringify(['o', slices]);
}

async function decodeDocument(text: string): Promise<unknown> {
  const [shape, content] = JSON.parse(text) as ['v', string] | ['a' | 'o', string[]];
  if (shape === 'v') return JSON.parse(content);
  const array: unknown[] = [];
  const object: Record<string, unknown> = {};
  for (let index = 0; index < content.length; index++) {
    if (index > 0) await new Promise((resolve) => setImmediate(resolve));
    const slice = JSON.parse(content[index]!) as unknown[];
    if (shape === 'a') {
      for (const element of slice) array.push(element);
      continue;
    }
    // defineProperty: a member named __proto__ stays a member, as JSON.parse keeps it
    for (const [key, value] of slice as Array<[string, unknown]>)
      Object.defineProperty(object, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return shape === 'a' ? array : object;
}

/**
 * A JSON object of attributes the admin API saves, with the REST API's messages for what it
 * refuses.
 */
function attributesToSave(text: string): Array<[string, TypedValue]> {
  let document: unknown;
  try {
    document = parseLossless(text);
  } catch {
    throw new BadRequestError('Invalid JSON');
  }
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw new BadRequestError('Invalid JSON');
  const entries = typedEntries(document);
  if (entries.length === 0) throw new BadRequestError('No attributes data found in request body!');
  if (entries.some(([key]) => !key.trim())) throw new BadRequestError('Key cannot be blank');
  return entries;
}

/**
 * An entry as [key, type letter, value]; a LONG's value as its decimal text (JSON has no 64-bit
 * integers).
 */
type EncodedEntry = [string, 'S' | 'B' | 'D' | 'L' | 'J', unknown];

function encodeEntry([key, typed]: [string, TypedValue]): EncodedEntry {
  switch (typed.type) {
    case 'STRING':
      return [key, 'S', typed.value];
    case 'BOOLEAN':
      return [key, 'B', typed.value];
    case 'DOUBLE':
      return [key, 'D', typed.value]; // JSON.stringify writes the shortest text that reads back exactly
    case 'LONG':
      return [key, 'L', typed.value.toString()];
    case 'JSON':
      return [key, 'J', typed.value];
  }
}

function decodeEntry([key, letter, value]: EncodedEntry): [string, TypedValue] {
  switch (letter) {
    case 'S':
      return [key, { type: 'STRING', value: value as string }];
    case 'B':
      return [key, { type: 'BOOLEAN', value: value as boolean }];
    case 'D':
      return [key, { type: 'DOUBLE', value: value as number }];
    case 'L':
      return [key, { type: 'LONG', value: BigInt(value as string) }];
    case 'J':
      return [key, { type: 'JSON', value }];
  }
}

export function encodeResult(job: PayloadJob, result: PayloadJobResult): string {
  if (job.kind === 'json') return encodeDocument(result);
  if (job.kind === 'telemetry')
    return JSON.stringify(
      (result as TelemetryRecord[]).map(({ ts, values }) => [ts, values.map(encodeEntry)]),
    );
  return JSON.stringify((result as Array<[string, TypedValue]>).map(encodeEntry));
}

/**
 * Entries decoded per turn of the event loop: other clients' requests are served between two
 * slices.
 */
const DECODE_SLICE = 2000;

export async function decodeResult(job: PayloadJob, text: string): Promise<PayloadJobResult> {
  if (job.kind === 'json') return decodeDocument(text);
  const encoded = JSON.parse(text) as unknown[];
  const decoded: unknown[] = [];
  for (let start = 0; start < encoded.length; start += DECODE_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const item of encoded.slice(start, start + DECODE_SLICE)) {
      if (job.kind === 'telemetry') {
        const [ts, values] = item as [number, EncodedEntry[]];
        decoded.push({ ts, values: values.map(decodeEntry) });
      } else decoded.push(decodeEntry(item as EncodedEntry));
    }
  }
  return decoded as PayloadJobResult;
}
