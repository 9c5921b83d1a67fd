/**
 * Cucumber in this process for many runs: the configuration and the support code (steps, hooks) are
 * loaded once and each run only changes the tag expression. Step files are modules, so a second
 * load in one process would register nothing; cucumber takes a loaded support library for exactly
 * this (see ISupportCodeCoordinatesOrLibrary). Each run opens the target afresh in its BeforeAll
 * (the embedded reference starts on new ports), so no state of a faulty run leaks into the next.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join, resolve } from 'node:path';
import type * as messages from '@cucumber/messages';
import {
  loadConfiguration,
  loadSources,
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
    /** Every feature file of the configuration's paths, in cucumber's order, with its tags. */
    private readonly features: ReadonlyArray<{ uri: string; tags: ReadonlySet<string> }>,
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
    const { plan } = await loadSources(
      { ...runConfiguration.sources, tagExpression: '' },
      {
        cwd: PROJECT_ROOT,
      },
    );
    const features = [...new Set(plan.map((pickle) => pickle.uri))].map((uri) => ({
      uri,
      tags: fileTags(readFileSync(resolve(PROJECT_ROOT, uri), 'utf8')),
    }));
    return new CucumberSession(runConfiguration, support, features);
  }

  /**
   * The feature files that can hold a scenario of a tag expression that is only tags joined by
   * `or` (the matrix's `@<requirement>` and its baseline's `@A or @B ...`): those whose text carries
   * one of its tags; cucumber then selects the scenarios among them exactly as among all files.
   * Any other expression (`and`, `not`, parentheses) keeps all the configuration's paths. Each run
   * used to parse all 42 feature files twice (the selection check, then cucumber itself) to run a
   * requirement's few scenarios: about 0.1 s of CPU per fault run, and the matrix has 400 of them.
   */
  private pathsFor(tagExpression: string): string[] | undefined {
    const words = tagExpression.trim().split(/\s+/);
    const tags = words.filter((_, index) => index % 2 === 0);
    if (
      words.length % 2 === 0 ||
      !tags.every((tag) => /^@[^\s()@]+$/.test(tag)) ||
      !words.every((word, index) => index % 2 === 0 || word === 'or')
    )
      return undefined;
    return this.features
      .filter((feature) => tags.some((tag) => feature.tags.has(tag)))
      .map((feature) => feature.uri);
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
    const paths = this.pathsFor(tagExpression);
    const sources = {
      ...this.configuration.sources,
      tagExpression,
      // no file carries one of its tags: the configuration's paths, for checkSelection's message
      ...(paths?.length ? { paths } : {}),
    };
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

/**
 * The tags a feature file's text carries: every `@word` on its tag lines (lines that start with
 * `@`), those of the feature, its rules, scenarios and examples alike.
 */
function fileTags(text: string): Set<string> {
  const tags = new Set<string>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('@')) continue;
    for (const word of trimmed.split(/\s+/)) {
      if (word.startsWith('#')) break; // a comment after the tags
      if (word.startsWith('@')) tags.add(word);
    }
  }
  return tags;
}
