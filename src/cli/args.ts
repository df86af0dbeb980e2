/** How one flag is written: `--name VALUE` (repeatable or not) or a bare switch. */
export interface FlagSpec {
  /** Takes a value (`--workspace DIR`, `--workspace=DIR`). */
  value?: boolean;
  /** May be given more than once; every value is kept in order. */
  repeat?: boolean;
}

export interface ParsedArgs {
  /** Values by flag name (without `--`); a switch is `['']`. */
  flags: Map<string, string[]>;
  positionals: string[];
  /** One message per problem (unknown flag, missing value, flag given twice). */
  errors: string[];
}

/**
 * Reads `argv` against the flags a command takes. `--` ends the flags; a lone `-` is a positional.
 * Never throws: problems are collected for the usage error.
 */
export function parseArgs(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>): ParsedArgs {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const spec = specs[name];
    if (!spec) {
      errors.push(`Unknown option --${name}.`);
      continue;
    }
    let value = '';
    if (spec.value) {
      if (equals !== -1) value = arg.slice(equals + 1);
      else if (i + 1 < argv.length) value = argv[++i];
      else {
        errors.push(`--${name} needs a value.`);
        continue;
      }
    } else if (equals !== -1) {
      errors.push(`--${name} takes no value.`);
      continue;
    }
    const values = flags.get(name) ?? [];
    if (values.length > 0 && !spec.repeat) {
      errors.push(`--${name} is given more than once.`);
      continue;
    }
    values.push(value);
    flags.set(name, values);
  }
  return { flags, positionals, errors };
}

/** The last value of a flag, or undefined. */
export function flagValue(parsed: ParsedArgs, name: string): string | undefined {
  return parsed.flags.get(name)?.at(-1);
}

export function hasFlag(parsed: ParsedArgs, name: string): boolean {
  return parsed.flags.has(name);
}

export function flagValues(parsed: ParsedArgs, name: string): string[] {
  return parsed.flags.get(name) ?? [];
}
