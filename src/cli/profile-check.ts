/**
 * `iotc profile check <profile>` (and the start of every `iotc run`): which requirements a run with
 * this profile will leave NOT APPLICABLE or NOT TESTED, and for each the profile field or
 * capability that would let it run.
 *
 * Read from the feature files alone, without a target: the same rules the hooks and steps apply
 * when they skip a scenario (steps/hooks.ts: a capability the profile lacks, a deviation; the steps
 * that need platform.https, platform.mqtts, a claim window short enough to wait out, token
 * lifetimes short enough or settable). A rule added to a step belongs here too; the run's own
 * reasons (src/report/verdicts.ts) quote what the step logged.
 */
import { routedDestinations } from '../target/effective-rest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { generateMessages } from '@cucumber/gherkin';
import { IdGenerator, SourceMediaType } from '@cucumber/messages';
import type { Requirement, TargetProfile } from '../../schemas';
import { loadCatalogue } from '../report/conformance';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { loadProfileUnresolved } from '../target';

/** A scenario of the suite: its tags and step texts. */
export interface SuiteScenario {
  location: string;
  tags: string[];
  steps: string[];
}

export interface PredictedGap {
  id: string;
  verdict: 'NOT APPLICABLE' | 'NOT TESTED';
  /** What would let its skipped scenarios run: profile fields and capabilities, in words. */
  needs: string[];
  /** How many of its scenarios the profile skips, of how many. */
  skipped: number;
  scenarios: number;
}

/** Every scenario of the feature files under `dir` (default: the suite's features/). */
export function suiteScenarios(dir = join(PACKAGE_ROOT, 'features')): SuiteScenario[] {
  const files = (function walk(folder: string): string[] {
    return readdirSync(folder).flatMap((name) => {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) return walk(path);
      return name.endsWith('.feature') ? [path] : [];
    });
  })(dir).sort();
  return files.flatMap((file) => {
    const uri = relative(PACKAGE_ROOT, file);
    return generateMessages(
      readFileSync(file, 'utf8'),
      uri,
      SourceMediaType.TEXT_X_CUCUMBER_GHERKIN_PLAIN,
      {
        includeSource: false,
        includeGherkinDocument: false,
        includePickles: true,
        newId: IdGenerator.incrementing(),
      },
    ).flatMap((envelope) =>
      envelope.pickle
        ? [
            {
              location: `${uri}:${envelope.pickle.location?.line ?? 0}`,
              tags: envelope.pickle.tags.map((tag) => tag.name),
              steps: envelope.pickle.steps.map((step) => step.text),
            },
          ]
        : [],
    );
  });
}

/** The longest token lifetime a scenario waits out (steps/token-lifetimes.steps.ts). */
const LONGEST_LIFETIME_WAIT_SEC = 90;

/** Why this profile skips the scenario: what would let it run (empty: it runs). */
export function skipNeeds(profile: TargetProfile, scenario: SuiteScenario): string[] {
  const capabilities = new Set<string>(profile.capabilities ?? []);
  const platform = profile.platform;
  const needs: string[] = [];
  for (const tag of scenario.tags) {
    if (!tag.startsWith('@capability-')) continue;
    const capability = tag.slice('@capability-'.length);
    if (capabilities.has(capability)) continue;
    const extra =
      capability === 'tenant-limits' || capability === 'jwt-settings'
        ? platform.sysAdmin
          ? ''
          : ' with platform.sysAdmin'
        : capability === 'rest-connector'
          ? profile.embedded
            ? ''
            : ' with a connector section'
          : capability === 'analytics' && !profile.embedded && !profile.analytics
            ? ' with an analytics section'
            : '';
    needs.push(`capability "${capability}"${extra}`);
  }
  const eventuallyMs = profile.timeouts?.eventuallyMs ?? 5000;
  const stated = platform.accessTokenLifetimeSec !== undefined;
  const settable = capabilities.has('jwt-settings');
  for (const step of scenario.steps) {
    // steps/rest-connector-external.steps.ts: a default destination reached only through the
    // target's network
    const route = /^the connector's network delivers calls to "([^"]*)" to the external API$/.exec(
      step,
    );
    if (route) {
      // (without the connector at all, the capability is what it needs, said above)
      if (
        (profile.embedded || capabilities.has('rest-connector')) &&
        !routedDestinations(profile).has(route[1])
      )
        needs.push(`connector.routedDestinations naming "${route[1]}"`);
      continue;
    }
    if (
      step === 'the target serves the HTTP device API over HTTPS too' &&
      !platform.https &&
      !profile.embedded
    )
      needs.push('platform.https (and platform.tls.caFile for a self-signed certificate)');
    else if (step === 'the target serves MQTT over TLS too' && !platform.mqtts && !profile.embedded)
      needs.push('platform.mqtts (and platform.tls.caFile for a self-signed certificate)');
    else if (
      step.startsWith("once the platform's device.claim.duration has ended") &&
      (platform.claimDurationMs ?? 86_400_000) > 10 * eventuallyMs
    )
      needs.push(
        `platform.claimDurationMs of at most ${10 * eventuallyMs} ms (10 × timeouts.eventuallyMs; the target's device.claim.duration)`,
      );
    else if (step === "the target's token lifetimes are known" && !stated && !settable)
      needs.push(
        'platform.accessTokenLifetimeSec and platform.refreshTokenLifetimeSec, or capability "jwt-settings" with platform.sysAdmin',
      );
    else if (
      step === 'the target runs with the default token lifetimes' &&
      (stated || platform.refreshTokenLifetimeSec !== undefined)
    )
      needs.push(
        'no platform.accessTokenLifetimeSec / refreshTokenLifetimeSec (the target runs with other lifetimes)',
      );
    else {
      const short =
        /^the target's (access|refresh) token lifetime is short enough to wait for$/.exec(step);
      if (!short) continue;
      const which = short[1] as 'access' | 'refresh';
      const own =
        which === 'access' ? platform.accessTokenLifetimeSec : platform.refreshTokenLifetimeSec;
      const shortest = platform.shortestTokenLifetimesSec?.[which] ?? (which === 'access' ? 2 : 6);
      const statedShort =
        platform.accessTokenLifetimeSec !== undefined &&
        platform.refreshTokenLifetimeSec !== undefined &&
        (own ?? Infinity) <= LONGEST_LIFETIME_WAIT_SEC;
      if (statedShort) continue;
      if (!settable)
        needs.push(
          `platform.${which}TokenLifetimeSec of at most ${LONGEST_LIFETIME_WAIT_SEC} s (with the other lifetime), or capability "jwt-settings" with platform.sysAdmin`,
        );
      else if (shortest > LONGEST_LIFETIME_WAIT_SEC)
        needs.push(
          `a target whose shortest ${which} token lifetime (platform.shortestTokenLifetimesSec.${which}, ${shortest} s) is at most ${LONGEST_LIFETIME_WAIT_SEC} s`,
        );
    }
  }
  return needs;
}

/**
 * The requirements this profile leaves NOT APPLICABLE or NOT TESTED, with what would let them run.
 */
export function predictGaps(
  profile: TargetProfile,
  catalogue: readonly Requirement[] = loadCatalogue(),
  scenarios: readonly SuiteScenario[] = suiteScenarios(),
): PredictedGap[] {
  const deviations = new Set(Object.keys(profile.deviations ?? {}));
  const alternativesOf = (scenario: SuiteScenario) =>
    scenario.tags
      .filter((tag) => tag.startsWith('@deviation-'))
      .map((tag) => tag.slice('@deviation-'.length));
  // as src/report/verdicts.ts: an alternative runs only where its deviation is declared, a
  // specification scenario only where none of its requirements' deviations is
  const runsHere = (scenario: SuiteScenario) => {
    const alternatives = alternativesOf(scenario);
    if (alternatives.length) return alternatives.some((id) => deviations.has(id));
    return !scenario.tags.some((tag) => deviations.has(tag.slice(1)));
  };
  const gaps: PredictedGap[] = [];
  for (const requirement of catalogue) {
    if (!requirement.testable) continue;
    const declared = deviations.has(requirement.id);
    const tag = declared ? `@deviation-${requirement.id}` : `@${requirement.id}`;
    const own = scenarios.filter(
      (scenario) => scenario.tags.includes(tag) && (declared || runsHere(scenario)),
    );
    if (own.length === 0) continue; // no scenario at all: no profile changes that (the run says so)
    const needs = own.map((scenario) => skipNeeds(profile, scenario));
    const skipped = needs.filter((list) => list.length > 0).length;
    if (skipped === 0) continue;
    const all = [...new Set(needs.flat())];
    const capability = requirement.capability;
    // as the run judges (src/report/verdicts.ts): none of its scenarios ran and its own capability
    // is absent
    const notApplicable =
      skipped === own.length &&
      capability !== undefined &&
      !(profile.capabilities ?? []).includes(capability as never);
    gaps.push({
      id: requirement.id,
      verdict: notApplicable ? 'NOT APPLICABLE' : 'NOT TESTED',
      needs: all,
      skipped,
      scenarios: own.length,
    });
  }
  return gaps;
}

/**
 * The gaps in words, grouped by what would close them: a line per need with the requirement ids.
 */
export function formatGaps(
  profileName: string,
  gaps: readonly PredictedGap[],
  total: number,
): string {
  if (gaps.length === 0)
    return `Profile "${profileName}": every testable requirement with scenarios can run (nothing will be NOT APPLICABLE or NOT TESTED for want of a profile field or capability)`;
  const lines: string[] = [];
  for (const verdict of ['NOT APPLICABLE', 'NOT TESTED'] as const) {
    const own = gaps.filter((gap) => gap.verdict === verdict);
    if (!own.length) continue;
    lines.push(`  ${own.length} will be ${verdict}:`);
    const byNeed = new Map<string, string[]>();
    for (const gap of own) {
      const key = gap.needs.join('; ');
      byNeed.set(key, [
        ...(byNeed.get(key) ?? []),
        gap.skipped === gap.scenarios
          ? gap.id
          : `${gap.id} (${gap.skipped} of ${gap.scenarios} scenarios)`,
      ]);
    }
    for (const [need, ids] of byNeed) lines.push(`    needs ${need}: ${ids.join(', ')}`);
  }
  return [
    `Profile "${profileName}": of ${total} testable requirements, ${gaps.length} will not be decided by a run with it:`,
    ...lines,
  ].join('\n');
}

/** `iotc profile check <profile>`: prints the gaps; exit 0 (a gap is information, not an error). */
export function profileCheckCommand(nameOrPath: string, options: { json?: boolean }): number {
  const { profile, unset } = loadProfileUnresolved(nameOrPath);
  const catalogue = loadCatalogue();
  const gaps = predictGaps(profile, catalogue);
  if (options.json) process.stdout.write(`${JSON.stringify(gaps, null, 2)}\n`);
  else {
    console.log(
      formatGaps(
        profile.name,
        gaps,
        catalogue.filter((requirement) => requirement.testable).length,
      ),
    );
    if (unset.length)
      console.log(
        `(a run also needs the environment variable${unset.length > 1 ? 's' : ''} ${unset.join(', ')})`,
      );
  }
  return 0;
}
