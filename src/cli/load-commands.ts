/**
 * The `iotc load` commands: one per load profile, each with the options every profile has (target,
 * thresholds, reports, shards) and its own, derived from the profile's options schema
 * (schemas/load-*.ts, listed in LOAD_OPTIONS_SCHEMAS): the flag, its help (the option's
 * description), its default (the schema's `default`) and how its value is read (the option's type,
 * enum and range). A new profile adds no line here. The profiles are loaded only when their command
 * runs.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { LOAD_OPTIONS_SCHEMAS, type LoadOptionSchema, type LoadOptionsSchema } from '../../schemas';
import type { CommonLoadOptions } from './load-run';
import { mqttVersion, positiveInteger } from './option-parsers';

/** A load profile's command with the options every profile has. */
function loadCommand(load: Command, name: string, description: string): Command {
  return load
    .command(name)
    .description(description)
    .option(
      '-t, --target <profile>',
      'built-in profile name or target profile JSON file',
      process.env.IOTC_TARGET || 'embedded',
    )
    .option(
      '--threshold <expression>',
      "k6-style threshold added to the profile's defaults, e.g. 'p99<50' or 'errors<=10' (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--no-default-thresholds',
      "only the thresholds given (--threshold, --thresholds) decide the verdict, not the profile's defaults; none at all is NOT MEASURED",
    )
    .option(
      '--thresholds <file.json>',
      'thresholds from a file: {"thresholds": ["p99<50", ...]} or {"thresholds": {"p99": ["<50"]}} (schemas/load-thresholds.ts)',
    )
    .option('-r, --reports <dir>', 'where reports/load/ is written', 'reports')
    .option(
      '--shard <i/n>',
      "run shard i of n (0-based): this process takes the i-th of n blocks of the fleet and its share of the rate; merge the shards' reports with iotc load merge",
    )
    .option(
      '--shard-count <n>',
      'run shard JOB_COMPLETION_INDEX of n (the index a Kubernetes Indexed Job gives each pod)',
      positiveInteger,
    )
    .option(
      '--start-at <time>',
      'start sending at this time (ISO 8601 or epoch ms), after the setup: every shard starts together',
    )
    .option(
      '--raw-latencies',
      'also write every latency (µs) to reports/load/<profile>.latencies.json, to check merged histograms against',
    );
}

function run(): typeof import('./load-run') {
  return require('./load-run') as typeof import('./load-run');
}

export function registerLoadCommands(program: Command): void {
  const load = program.command('load').description('load profiles against a target');
  for (const schema of LOAD_OPTIONS_SCHEMAS) registerProfileCommand(load, schema);

  load
    .command('merge')
    .description(
      "combine the reports of a sharded run (each shard's reports directory) into one: histograms merged, counts summed, thresholds evaluated again; the exit code is the merged verdict's",
    )
    .argument('<dirs...>', "the shards' reports directories (each with load/<profile>.json)")
    .option('-r, --reports <dir>', 'where the merged reports/load/ is written', 'reports')
    .action(async (dirs: string[], options: { reports: string }) => {
      const { mergeCommand } = require('./load-merge') as typeof import('./load-merge');
      process.exitCode = mergeCommand(dirs, options.reports);
    });
}

/**
 * `iotc load <profile>`: the common options, then one flag per option of the schema (and its alias
 * flags).
 */
function registerProfileCommand(load: Command, schema: LoadOptionsSchema): void {
  const command = loadCommand(load, schema.cli.command, schema.cli.description);
  const flags = Object.entries(schema.properties).filter(([, option]) => !option.cli?.hidden);
  for (const [name, option] of flags) {
    command.addOption(flagOf(name, option));
    const alias = option.cli?.alias;
    if (alias)
      command.addOption(new Option(alias.flag, alias.description).argParser(parserOf(option)));
  }
  command.action(async (given: CommonLoadOptions & Record<string, unknown>) => {
    const options: Record<string, unknown> = {};
    for (const [name, option] of flags) {
      const value = given[attributeOf(flagText(name, option))];
      if (value !== undefined) options[name] = value;
    }
    // an alias flag wins over its option's own flag (--total-rate over --rate), as it always did
    for (const [name, option] of flags) {
      const alias = option.cli?.alias;
      const value = alias && given[attributeOf(alias.flag)];
      if (alias && value !== undefined) Object.assign(options, { [name]: value }, alias.sets);
    }
    const profile = profileOf(schema);
    process.exitCode = await run().runLoadCommand(profile, options, given);
  });
}

/** The profile whose options `schema` declares: load/<command>.ts exports it. */
function profileOf(schema: LoadOptionsSchema): import('../../load/contract').LoadProfile<unknown> {
  const { loadProfileNamed } =
    require('../../load/profiles') as typeof import('../../load/profiles');
  const profile = loadProfileNamed(schema.cli.command);
  if (!profile) throw new Error(`load/${schema.cli.command}.ts exports no profile of that name`);
  return profile;
}

function flagText(name: string, option: LoadOptionSchema): string {
  if (option.cli?.flag) return option.cli.flag;
  const kebab = name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const value = option.enum ? option.enum.join('|') : option.type === 'string' ? 'value' : 'n';
  return `--${kebab} <${value}>`;
}

/** commander's attribute for a flag: `--total-rate <n>` -> totalRate. */
function attributeOf(flags: string): string {
  const long = /--([\w-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

function flagOf(name: string, option: LoadOptionSchema): Option {
  const flags = flagText(name, option);
  const flag = new Option(flags, helpOf(option.description)).argParser(parserOf(option));
  return option.default === undefined ? flag : flag.default(option.default);
}

/**
 * The description as the CLI words help: no capital (but for an acronym: MQTT, QoS), no full stop.
 */
function helpOf(description: string): string {
  const help = description.replace(/\.$/, '');
  const rest = /^\S+/.exec(help)?.[0].slice(1) ?? '';
  return rest === rest.toLowerCase() ? help.charAt(0).toLowerCase() + help.slice(1) : help;
}

/**
 * Reads a flag's value as the option's type, refusing (commander's usage error) what the schema
 * would refuse.
 */
function parserOf(option: LoadOptionSchema): (value: string) => unknown {
  if (option.cli?.parse === 'mqttVersion') return mqttVersion;
  const values = option.enum;
  if (values)
    return (value) => {
      const found = values.find((allowed) => String(allowed) === value.trim());
      if (found === undefined)
        throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
      return found;
    };
  if (option.type === 'integer' || option.type === 'number')
    return (value) => {
      const parsed = Number(value.trim() === '' ? Number.NaN : value);
      if (!Number.isFinite(parsed) || (option.type === 'integer' && !Number.isInteger(parsed)))
        throw new InvalidArgumentError(`expected ${rangeOf(option)}`);
      const low = option.exclusiveMinimum;
      if (
        (low !== undefined && parsed <= low) ||
        (option.minimum !== undefined && parsed < option.minimum) ||
        (option.maximum !== undefined && parsed > option.maximum)
      )
        throw new InvalidArgumentError(`expected ${rangeOf(option)}`);
      return parsed;
    };
  return (value) => value;
}

/** "an integer from 1 to 100000", "a number above 0 and at most 3600". */
function rangeOf(option: LoadOptionSchema): string {
  const kind = option.type === 'integer' ? 'an integer' : 'a number';
  const { minimum, exclusiveMinimum, maximum } = option;
  if (minimum !== undefined && maximum !== undefined)
    return `${kind} from ${minimum} to ${maximum}`;
  const bounds = [
    minimum !== undefined ? `at least ${minimum}` : '',
    exclusiveMinimum !== undefined ? `above ${exclusiveMinimum}` : '',
    maximum !== undefined ? `at most ${maximum}` : '',
  ].filter(Boolean);
  return bounds.length ? `${kind} ${bounds.join(' and ')}` : kind;
}
