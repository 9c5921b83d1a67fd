/**
 * The steps of reading a request (steps.ts) and the faults that wrap them (request-data.ts applies
 * them per request). Apart from step-faults.ts, which imports the handlers that import
 * request-data.ts.
 */
import type { Logger } from 'pino';
import type { StepFaults } from '../../faults/steps';

export interface RequestDataSteps {
  /**
   * The query's name-value pairs, percent-decoded with + as a space
   * (application/x-www-form-urlencoded).
   */
  queryParameters(url: URL): Array<[string, string]>;
  /** The data of a GET or HEAD request. */
  getData(query: Record<string, unknown>): Record<string, unknown>;
  /**
   * Whether a body of this media type is read (the others fall to the 415 of unsupported types).
   */
  accepted(mediaType: string): boolean;
  /** Whether a form field is kept (a repeated name keeps its first value). */
  keepsField(fields: Record<string, unknown>, name: string): boolean;
  /** A file part of a multipart body. */
  filePart(
    name: string,
    stream: NodeJS.ReadableStream,
    fields: Record<string, unknown>,
    logger: Logger,
    filename: string,
  ): void;
}

export const REQUEST_DATA_STEPS: RequestDataSteps = {
  queryParameters: (url) => [...url.searchParams],
  getData: (query) => query,
  accepted: () => true,
  keepsField: (fields, name) => !Object.hasOwn(fields, name),
  filePart: (name, stream, _fields, logger, filename) => {
    logger.info({ field: name, filename }, 'file parts of multipart requests are ignored');
    stream.resume();
  },
};

export const REQUEST_DATA_FAULTS: StepFaults<RequestDataSteps> = {
  'RC-BODY-05:plus-not-space': {
    queryParameters: () => (url) =>
      url.search
        .slice(1)
        .split('&')
        .filter(Boolean)
        .map((pair) => {
          const [name = '', value = ''] = pair.split('=');
          return [decodeURIComponent(name), decodeURIComponent(value)];
        }),
  },
  'RC-BODY-05:query-ignored-on-get': { getData: () => () => ({}) },
  'RC-BODY-01:multipart-refused': {
    accepted: (step) => (mediaType) => mediaType !== 'multipart/form-data' && step(mediaType),
  },
  'RC-BODY-02:first-field-only': {
    keepsField: (step) => (fields, name) => step(fields, name) && !Object.keys(fields).length,
  },
  'RC-BODY-04:file-parts-as-fields': {
    filePart: () => (name, stream, fields) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        fields[name] = Buffer.concat(chunks).toString('utf8');
      });
    },
  },
};
