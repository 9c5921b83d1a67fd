/**
 * Headless Chromium for tests (Debian's `chromium` package): where it is, and a page driven over
 * the DevTools protocol.
 *
 * The protocol goes over `--remote-debugging-pipe` (file descriptors 3 and 4, messages ended by a
 * NUL byte) rather than a WebSocket port: no port to take, nothing another process could connect
 * to, and no client library needed for the three commands a test uses (open a page, evaluate an
 * expression in it, close). Chromium runs in a process group of its own, which `close` kills whole
 * (its zygote, renderer and GPU processes too), on every path of the caller.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export function findChromium(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const path = join(dir, name);
      try {
        if (statSync(path).isFile()) return path;
      } catch {
        // not in this directory
      }
    }
  }
  return undefined;
}

/**
 * Why a test that needs Chromium is skipped: never in CI (CI=true), where .ci/run installs it and
 * its absence must fail the test; elsewhere when it is not installed (`packages`: what apt-get
 * installs for the test).
 */
export function skipWithoutChromium(packages: string): string | false {
  const inCi = process.env.CI === 'true' || process.env.CI === '1';
  return findChromium() || inCi
    ? false
    : `chromium is not installed (apt-get install -y ${packages}; .ci/run does it in CI)`;
}

/** How often `waitFor` looks at the page again. */
const LOOK_EVERY_MS = 100;

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** One page in a headless Chromium of its own. */
export class ChromiumPage {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffered = '';
  private sessionId = '';
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const input = child.stdio[4] as Readable;
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.received(chunk));
    // also when the test process ends without closing the page (a thrown start-up, a cancelled
    // test)
    process.on('exit', this.killGroup);
    const gone = (why: string) => {
      this.exited = true;
      process.off('exit', this.killGroup);
      for (const { reject } of this.pending.values()) reject(new Error(why));
      this.pending.clear();
    };
    child.once('exit', () => gone('chromium exited'));
    child.once('error', (error) => gone(`chromium could not start: ${error.message}`));
  }

  /** Starts Chromium and opens `url` in a page; a failed start kills what was started. */
  static async open(executable: string, url: string): Promise<ChromiumPage> {
    const profile = mkdtempSync(join(tmpdir(), 'iotc-chromium-'));
    const child = spawn(
      executable,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--remote-debugging-pipe',
        '--window-size=1280,1600',
        `--user-data-dir=${profile}`,
        'about:blank',
      ],
      { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    );
    const page = new ChromiumPage(child, profile);
    try {
      const { targetId } = await page.send('Target.createTarget', { url });
      const { sessionId } = await page.send('Target.attachToTarget', { targetId, flatten: true });
      page.sessionId = String(sessionId);
      return page;
    } catch (error) {
      await page.close();
      throw error;
    }
  }

  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  async evaluate<Value>(expression: string): Promise<Value> {
    const answer = await this.send('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    const thrown = answer.exceptionDetails as { text?: string } | undefined;
    if (thrown)
      throw new Error(`the page threw on ${expression}: ${thrown.text ?? 'an exception'}`);
    return (answer.result as { value: Value }).value;
  }

  /** A PNG of the page as it is now (the window's size). */
  async screenshot(): Promise<Buffer> {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(String(data), 'base64');
  }

  /**
   * Looks at the page until `expression` gives a value `accept` takes, and returns it. No bound of
   * its own: the test's timeout is the hang guard (a busy machine may take long).
   */
  async waitFor<Value>(expression: string, accept: (value: Value) => boolean): Promise<Value> {
    for (;;) {
      const value = await this.evaluate<Value>(expression);
      if (accept(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
  }

  /**
   * Kills the browser's whole process group and removes its profile; safe to call more than once.
   */
  async close(): Promise<void> {
    const ended = this.exited
      ? undefined
      : new Promise((resolve) => this.child.once('exit', resolve));
    this.killGroup(); // the leader may be gone while its renderers live on: the group is killed in any case
    await ended;
    rmSync(this.profile, { recursive: true, force: true });
  }

  private readonly killGroup = (): void => {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };

  private send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.exited) return Promise.reject(new Error(`chromium exited before ${method}`));
    const id = this.nextId++;
    const message = {
      id,
      method,
      params,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify(message)}\0`);
    });
  }

  private received(chunk: string): void {
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\0'); end >= 0; end = this.buffered.indexOf('\0')) {
      const message = JSON.parse(this.buffered.slice(0, end)) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      this.buffered = this.buffered.slice(end + 1);
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) continue; // an event: none is subscribed to
      this.pending.delete(message.id as number);
      if (message.error) waiting.reject(new Error(`DevTools: ${message.error.message}`));
      else waiting.resolve(message.result ?? {});
    }
  }
}
