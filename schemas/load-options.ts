/**
 * What a load profile's options schema (schemas/load-*.ts) declares besides JSON Schema, so that
 * the schema is the one place an option is declared: `iotc load <profile>` derives its command,
 * flags, help, defaults and value parsing from it (src/cli/load-commands.ts), and the profile
 * validates the same schema. Unknown keywords are ignored by ajv (schemas/validate.ts runs it with
 * `strict: false`).
 */

/** How an option appears on the command line; every member is optional. */
export interface LoadFlag {
  /** commander flags, e.g. `-n, --devices <n>` (default: `--<kebab-case name> <n|value|a|b>`). */
  readonly flag?: string;
  /**
   * A named value parser of src/cli/option-parsers.ts, where the type alone does not say it
   * (`mqttVersion`).
   */
  readonly parse?: 'mqttVersion';
  /**
   * Another flag that sets this option and fixes others, e.g. `--total-rate <n>` sets rate and
   * rateOf=total.
   */
  readonly alias?: {
    readonly flag: string;
    readonly description: string;
    readonly sets: Readonly<Record<string, string | number | boolean>>;
  };
  /** Not on the command line (an option for programmatic runs only). */
  readonly hidden?: boolean;
}

/** A load option: its JSON Schema (description required: it is the flag's help) and its flag. */
export interface LoadOptionSchema {
  readonly description: string;
  /** The command line's value when the flag is not given (JSON Schema's own keyword). */
  readonly default?: unknown;
  readonly type?: 'integer' | 'number' | 'string';
  readonly enum?: readonly (string | number)[];
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  readonly cli?: LoadFlag;
  /** Any other JSON Schema keyword (pattern, minLength...). */
  readonly [keyword: string]: unknown;
}

/** The options schema of a load profile: its command (`iotc load <name>`) and its options. */
export interface LoadOptionsSchema {
  readonly $id: string;
  readonly cli: {
    /** The profile's name (load/<name>.ts exports the profile) and its command's name. */
    readonly command: string;
    /** One line for `iotc load --help` and docs/reference/cli.md. */
    readonly description: string;
  };
  readonly properties: Readonly<Record<string, LoadOptionSchema>>;
  readonly [keyword: string]: unknown;
}
