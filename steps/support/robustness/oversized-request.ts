/**
 * A POST whose JSON body is larger than a payload limit, streamed in chunks and never held whole in
 * memory: the document `{"<key>":"xxx…"}` is exactly `bytes` long and declares that length
 * (Content-Length), as a client that means it would. Writing stops as soon as the target answers (a
 * 413 comes from the declared length, before the body is read). Written on node:http rather than
 * undici because it must stop sending mid-body when the answer arrives, and see the answer even
 * when the target closes the connection on the rest of the body.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

const CHUNK_BYTES = 64 * 1024;

export interface OversizedAnswer {
  /** The status the target answered; undefined when it closed the connection without an answer. */
  status?: number;
  text: string;
  /** Bytes of the body written before the answer came (or the connection ended). */
  bytesSent: number;
  /** Why no answer came, when none did. */
  error?: string;
}

export interface OversizedOptions {
  timeoutMs: number;
  tls?: { ca?: string; insecureSkipVerify: boolean };
}

/**
 * Connection errors after which the answer may have been lost rather than never sent: the request
 * is tried again.
 */
const LOST_ANSWER = /EPIPE|ECONNRESET/;
const ATTEMPTS = 3;

/**
 * Sends the oversized POST; when the target reset the connection before its answer could be read
 * (it answered and closed while the body was still coming: a write then fails with EPIPE, now and
 * then before the answer is read), the request is sent again, at most three times in all. Any
 * answer, or any other failure, is final.
 */
export async function postOversized(
  url: string,
  key: string,
  bytes: number,
  options: OversizedOptions,
): Promise<OversizedAnswer> {
  let answer = await postOnce(url, key, bytes, options);
  for (let attempt = 2; attempt <= ATTEMPTS && answer.status === undefined; attempt++) {
    if (!LOST_ANSWER.test(answer.error ?? '')) break;
    answer = await postOnce(url, key, bytes, options);
  }
  return answer;
}

function postOnce(
  url: string,
  key: string,
  bytes: number,
  options: OversizedOptions,
): Promise<OversizedAnswer> {
  const head = Buffer.from(`{${JSON.stringify(key)}:"`);
  const tail = Buffer.from('"}');
  const fill = bytes - head.length - tail.length;
  if (fill < 0) throw new RangeError(`a body of ${bytes} bytes cannot hold the key ${key}`);
  const filler = Buffer.alloc(Math.min(CHUNK_BYTES, fill), 'x');
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let bytesSent = 0;
    let answered = false;
    let settled = false;
    const finish = (answer: OversizedAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      request.destroy();
    };
    const request: ClientRequest = send(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(bytes) },
      ca: options.tls?.ca,
      rejectUnauthorized: options.tls ? !options.tls.insecureSkipVerify : undefined,
      agent: false,
    });
    const timer = setTimeout(
      () => finish({ text: '', bytesSent, error: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        finish({
          status: response.statusCode,
          text: Buffer.concat(chunks).toString('utf8'),
          bytesSent,
        }),
      );
      response.on('error', () =>
        finish({
          status: response.statusCode,
          text: Buffer.concat(chunks).toString('utf8'),
          bytesSent,
        }),
      );
    });
    request.on('error', (error) => {
      // a target that answers and closes may reset the rest of the upload: the answer, if any, is
      // still read
      if (!answered) finish({ text: '', bytesSent, error: error.message });
    });
    // bounded: at most `bytes` are written, one chunk at a time, the next only after the socket
    // took the last and the event loop has read what came in: a target that answers 413 and closes
    // is seen answering before a write into the closed connection fails (EPIPE), which would lose
    // the answer
    let left = fill;
    const writeMore = () => {
      if (settled || answered) return;
      if (left === 0) {
        bytesSent += tail.length;
        request.end(tail);
        return;
      }
      const chunk = left >= filler.length ? filler : filler.subarray(0, left);
      left -= chunk.length;
      bytesSent += chunk.length;
      request.write(chunk, () => setImmediate(writeMore));
    };
    bytesSent += head.length;
    request.write(head, () => setImmediate(writeMore));
  });
}
