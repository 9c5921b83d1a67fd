/**
 * Cucumber in this process for many runs: the configuration and the support code (steps, hooks) are
 * loaded once and each run only changes the tag expression. Step files are modules, so a second
 * load in one process would register nothing; cucumber takes a loaded support library for exactly
 * this (see ISupportCodeCoordinatesOrLibrary). Each run opens the target afresh in its BeforeAll
 * (the embedded reference starts on new ports), so no state of a faulty run leaks into the next.
 */
import { Writable } from 'node:stream';
import { join } from 'node:path';
import type * as messages from '@cucumber/messages';
import {
  loadConfiguration,
  loadSupport,
  runCucumber,
  type IRunConfiguration,
  type ISupportCodeLibrary,
} from '@cucumber/cucumber/api';
import { PROJECT_ROOT, stepDefinitions } from '../engine/run';
import { checkSelection } from '../engine/selection';

interface SelectionRun {
  envelopes: messages.Envelope[];
  success: boolean;
}

export class CucumberSession {
  private constructor(
    private readonly configuration: IRunConfiguration,
    private readonly support: ISupportCodeLibrary,
  ) {}

  static async open(): Promise<CucumberSession> {
    const { default: profile } = require(join(PROJECT_ROOT, 'cucumber.js')) as {
      default: Record<string, unknown>;
    };
    const { runConfiguration } = await loadConfiguration(
      {
        file: false,
        // the TypeScript hook is registered in this process already; the runs report through their
        // messages, not formatters compiled (an installed package), the steps are the JavaScript in
        // dist/, as for `iotc run`
        provided: {
          ...profile,
          require: stepDefinitions(profile),
          requireModule: [],
          parallel: 0,
          format: [],
        },
      },
      { cwd: PROJECT_ROOT },
    );
    const support = await loadSupport(runConfiguration, { cwd: PROJECT_ROOT });
    return new CucumberSession(runConfiguration, support);
  }

  /**
   * Runs the scenarios the tag expression selects; throws SelectionError when it selects none. With
   * `failFast` the scenarios after the first failure are skipped: enough for a fault's kill, since
   * every scenario of the selection carries the fault's requirement and one failure makes it FAIL.
   */
  async run(
    tagExpression: string,
    target: string,
    { failFast = false }: { failFast?: boolean } = {},
  ): Promise<SelectionRun> {
    const sources = { ...this.configuration.sources, tagExpression };
    await checkSelection(sources, PROJECT_ROOT);
    process.env.IOTC_TARGET = target;
    const envelopes: messages.Envelope[] = [];
    const { success } = await runCucumber(
      {
        ...this.configuration,
        sources,
        runtime: { ...this.configuration.runtime, failFast },
        support: this.support,
        formats: { stdout: 'summary', files: {}, publish: false, options: {} },
      },
      // each run's own summary would drown the matrix's one line per fault
      { cwd: PROJECT_ROOT, stdout: new Writable({ write: (_chunk, _encoding, done) => done() }) },
      (envelope) => envelopes.push(envelope),
    );
    return { envelopes, success };
  }
}
