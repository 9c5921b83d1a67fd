/**
 * The progress of `iotc run`, from cucumber's messages (all workers' come through this process):
 * - on a terminal, a live line per interface: scenarios done of planned, FAIL so far, elapsed time,
 *   redrawn in place;
 * - elsewhere (CI logs), one line per finished feature file, with its interface's count so far.
 * Cucumber's own progress formatter printed one line of dots for the whole run.
 */
import type * as messages from '@cucumber/messages';

/** How often the terminal lines are redrawn at most. */
const REDRAW_MS = 250;

interface Counts {
  planned: number;
  done: number;
  failed: number;
  inconclusive: number;
}

export interface ProgressOptions {
  /** Where the lines go (process.stdout). */
  out: { write(text: string): unknown; isTTY?: boolean };
  /** Live lines on a terminal; one line per finished feature otherwise. Default: out.isTTY. */
  live?: boolean;
  now?: () => number;
  /**
   * Live only: redraw every second, so the elapsed time moves during a long scenario (default
   * true).
   */
  tick?: boolean;
}

/** How often a live progress redraws on its own. */
const TICK_MS = 1000;

/** Feature files are features/<interface>/<name>.feature: the folder names the interface. */
export function interfaceOf(uri: string): string {
  const parts = uri.split(/[\\/]/);
  const at = parts.lastIndexOf('features');
  return at >= 0 && parts.length > at + 2 ? parts[at + 1] : (parts.at(-2) ?? uri);
}

export class RunProgress {
  private readonly pickles = new Map<string, string>(); // pickle id -> uri
  private readonly testCases = new Map<string, string>(); // test case id -> uri
  private readonly started = new Map<string, { uri: string; worst: string }>();
  private readonly byInterface = new Map<string, Counts>();
  private readonly byFeature = new Map<string, Counts>();
  private readonly live: boolean;
  private readonly now: () => number;
  private readonly startedAt: number;
  private drawn = 0;
  private ticker?: NodeJS.Timeout;
  private lastDraw = 0;

  constructor(private readonly options: ProgressOptions) {
    this.live = options.live ?? options.out.isTTY === true;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    // the elapsed time moves on while a long scenario runs; unref'd, it never keeps the process
    // alive
    if (this.live && options.tick !== false)
      this.ticker = setInterval(() => {
        if (this.byInterface.size) this.draw(true);
      }, TICK_MS).unref();
  }

  /** Stops the ticking redraw (the run's end does it too). */
  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** Feed every envelope of the run. */
  onMessage(envelope: messages.Envelope): void {
    if (envelope.pickle) this.pickles.set(envelope.pickle.id, envelope.pickle.uri);
    else if (envelope.testCase) {
      const uri = this.pickles.get(envelope.testCase.pickleId);
      if (uri === undefined) return;
      this.testCases.set(envelope.testCase.id, uri);
      this.count(this.byInterface, interfaceOf(uri)).planned += 1;
      this.count(this.byFeature, uri).planned += 1;
    } else if (envelope.testCaseStarted) {
      const uri = this.testCases.get(envelope.testCaseStarted.testCaseId);
      if (uri !== undefined)
        this.started.set(envelope.testCaseStarted.id, { uri, worst: 'PASSED' });
    } else if (envelope.testStepFinished) {
      const run = this.started.get(envelope.testStepFinished.testCaseStartedId);
      const status = envelope.testStepFinished.testStepResult.status;
      if (run && status !== 'PASSED' && status !== 'SKIPPED' && run.worst === 'PASSED') {
        const message = envelope.testStepFinished.testStepResult.message ?? '';
        run.worst = /(^|: )INCONCLUSIVE:/.test(message) ? 'INCONCLUSIVE' : 'FAILED';
      }
    } else if (envelope.testCaseFinished) {
      const run = this.started.get(envelope.testCaseFinished.testCaseStartedId);
      this.started.delete(envelope.testCaseFinished.testCaseStartedId);
      if (!run || envelope.testCaseFinished.willBeRetried) return;
      for (const counts of [
        this.count(this.byInterface, interfaceOf(run.uri)),
        this.count(this.byFeature, run.uri),
      ]) {
        counts.done += 1;
        if (run.worst === 'FAILED') counts.failed += 1;
        if (run.worst === 'INCONCLUSIVE') counts.inconclusive += 1;
      }
      if (this.live) this.draw(false);
      else {
        const feature = this.count(this.byFeature, run.uri);
        if (feature.done === feature.planned) this.featureLine(run.uri, feature);
      }
    } else if (envelope.testRunFinished && this.live) {
      this.stop();
      this.draw(true);
    }
  }

  /** The line of one interface: "http-device-api   12/40 scenarios  FAIL 1  0:42". */
  line(name: string, counts: Counts): string {
    const width = Math.max(...[...this.byInterface.keys()].map((key) => key.length));
    const finished = counts.done === counts.planned ? ' done' : '';
    return `${name.padEnd(width)}  ${String(counts.done).padStart(String(counts.planned).length)}/${counts.planned} scenarios  FAIL ${counts.failed}${counts.inconclusive ? `  INCONCLUSIVE ${counts.inconclusive}` : ''}  ${this.elapsed()}${finished}`;
  }

  private featureLine(uri: string, feature: Counts): void {
    const name = interfaceOf(uri);
    const own = this.count(this.byInterface, name);
    this.options.out.write(
      `${uri}: ${feature.done} scenarios, FAIL ${feature.failed}${feature.inconclusive ? `, INCONCLUSIVE ${feature.inconclusive}` : ''} · ${name} ${own.done}/${own.planned}, FAIL ${own.failed} · ${this.elapsed()}\n`,
    );
  }

  private draw(force: boolean): void {
    const now = this.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const lines = [...this.byInterface.entries()].map(([name, counts]) => this.line(name, counts));
    const up = this.drawn ? `\x1b[${this.drawn}A` : '';
    this.options.out.write(`${up}${lines.map((line) => `\x1b[2K${line}\n`).join('')}`);
    this.drawn = lines.length;
  }

  private elapsed(): string {
    const seconds = Math.round((this.now() - this.startedAt) / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  }

  private count(map: Map<string, Counts>, key: string): Counts {
    let counts = map.get(key);
    if (!counts) {
      counts = { planned: 0, done: 0, failed: 0, inconclusive: 0 };
      map.set(key, counts);
    }
    return counts;
  }
}
