/**
 * The suite's inventory: every scenario of the default feature paths with its tags, selected or
 * not. Verdicts need it to tell a requirement whose scenarios all ran from one the selection
 * (--tags, paths) covered only partly. Cucumber emits a pickle message for every scenario it parses
 * before it filters them, so a run over the default paths yields its own inventory; a run
 * restricted to some paths gets it from a dry run over all of them.
 */
import { Writable } from 'node:stream';
import type * as messages from '@cucumber/messages';
import {
  runCucumber,
  type IRunConfiguration,
  type ISupportCodeLibrary,
} from '@cucumber/cucumber/api';
import { scenarioInventory, type PlannedScenario } from '../report/verdicts';

export async function dryRunInventory(
  configuration: IRunConfiguration,
  defaultPaths: string[],
  support: ISupportCodeLibrary,
  cwd: string,
): Promise<PlannedScenario[]> {
  const envelopes: messages.Envelope[] = [];
  await runCucumber(
    {
      ...configuration,
      sources: { ...configuration.sources, paths: defaultPaths, tagExpression: '', names: [] },
      support,
      runtime: { ...configuration.runtime, dryRun: true, parallel: 0 },
      formats: { stdout: 'summary', files: {}, publish: false, options: {} },
    },
    // a dry run's summary would only confuse the real run's output: it goes nowhere
    { cwd, stdout: new Writable({ write: (_chunk, _encoding, done) => done() }) },
    (envelope) => {
      if (envelope.pickle) envelopes.push(envelope);
    },
  );
  return scenarioInventory(envelopes);
}
