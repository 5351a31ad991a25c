/**
 * Flags of the developer runners (`npm run bench`, `npm run chaos`): `node:util` `parseArgs` (strict,
 * `--flag value` or `--flag=value`, one positional name), each flag also read from an environment variable
 * (the flag wins), and integer flags checked against a range.
 */
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface ParsedFlags {
  name: string | undefined;
  /** The string value of a flag (flag, else its environment variable), if any. */
  get(flag: string): string | undefined;
  /** An integer flag within `[min, max]`, else `fallback`; anything else is a UsageError. */
  int(flag: string, fallback: number, min: number, max: number): number;
}

/** `flags` maps each flag name (without `--`) to its environment variable. */
export function parseFlags(argv: readonly string[], flags: Record<string, string>): ParsedFlags {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      // `--help` anywhere asks for the usage, like the name `help`.
      args: argv.includes('--help') ? ['help'] : [...argv],
      options: Object.fromEntries(Object.keys(flags).map((f) => [f, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length > 1) throw new UsageError(`unexpected argument ${parsed.positionals[1]}`);
  const get = (flag: string): string | undefined => {
    const value = parsed.values[flag];
    if (typeof value === 'string') return value;
    const env = process.env[flags[flag] ?? ''];
    return env === undefined || env === '' ? undefined : env;
  };
  return {
    name: parsed.positionals[0],
    get,
    int(flag, fallback, min, max) {
      const raw = get(flag);
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new UsageError(`--${flag} must be an integer in ${min}..${max}, got ${raw}`);
      }
      return n;
    },
  };
}

/**
 * A runner's command line: its parsed flags with a name, or the exit code to end with after printing the
 * usage (a usage error or no name: 2; `help`: 0).
 */
export function runnerArguments<T extends { name: string | undefined }>(
  usage: string,
  parse: (argv: readonly string[]) => T,
): (T & { name: string }) | number {
  let parsed: T;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${usage}`);
    return 2;
  }
  if (parsed.name === undefined || parsed.name === 'help') {
    console.log(usage);
    return parsed.name === undefined ? 2 : 0;
  }
  return parsed as T & { name: string };
}
