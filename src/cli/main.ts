import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import * as path from 'node:path';
import { flagValue, flagValues, hasFlag, parseArgs, type FlagSpec, type ParsedArgs } from './args';
import { terminalText } from '../common/visibleText';
import { streamLog, type CliLog } from './cliLog';
import { CliWorkspace } from './cliWorkspace';
import { CHOICE_FLAGS, choicesFrom, COMMON_FLAGS } from './personChoices';
import { policyExplain, policyTest } from './policyCommands';
import { undoLastGroup } from './undoCommand';
import { EXIT, USAGE, UsageError } from './usage';
import type { CliIo } from './cliIo';

export type { CliIo };

const VERBOSE: Readonly<Record<string, FlagSpec>> = { verbose: {} };
const COMMANDS: Readonly<Record<string, Readonly<Record<string, FlagSpec>>>> = {
  mcp: { ...COMMON_FLAGS, ...CHOICE_FLAGS, ...VERBOSE, 'no-builtins': {} },
  run: {
    ...COMMON_FLAGS,
    ...CHOICE_FLAGS,
    ...VERBOSE,
    json: {},
    approve: { value: true, repeat: true },
    provider: { value: true },
    model: { value: true },
    'base-url': { value: true },
    'api-key': { value: true },
  },
  'policy explain': { ...COMMON_FLAGS, ...CHOICE_FLAGS, ...VERBOSE, json: {} },
  'policy test': { ...COMMON_FLAGS, ...CHOICE_FLAGS, ...VERBOSE, agents: {} },
  undo: { ...COMMON_FLAGS, ...VERBOSE },
};

/** Runs one command line; resolves with the exit code. Never rejects. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, second] = argv;
  if (first === undefined) {
    io.stderr.write(USAGE);
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h' || first === 'help') return write(io.stdout, USAGE, EXIT.ok);
  if (first === '--version') return write(io.stdout, `${version()}\n`, EXIT.ok);
  // dist/cli.js hands `hook` to dist/hook.js before this; here for a caller of runCli itself.
  if (first === 'hook') return (await import('./hookCommand')).runHook(argv.slice(1), io);
  if (first === 'agents') return (await import('./agentsCommand')).runAgents(argv.slice(1), io);
  const command = first === 'policy' && (second === 'explain' || second === 'test') ? `policy ${second}` : first;
  const specs = COMMANDS[command];
  if (!specs) {
    const hint = first === 'policy' ? 'policy takes "explain" or "test"' : `unknown command "${first}"`;
    return write(io.stderr, `toolbelt: ${hint}. Run toolbelt --help for the commands.\n`, EXIT.usage);
  }
  const rest = argv.slice(command.split(' ').length);
  if (rest.includes('-h')) return write(io.stdout, USAGE, EXIT.ok);
  const parsed = parseArgs(rest, specs);
  if (hasFlag(parsed, 'help')) return write(io.stdout, USAGE, EXIT.ok);
  const log = streamLog(io.stderr, hasFlag(parsed, 'verbose'));
  let workspace: CliWorkspace | undefined;
  try {
    if (parsed.errors.length > 0) throw new UsageError(parsed.errors.join(' '));
    const choices = choicesFrom(parsed, io.env, io.cwd);
    const root = path.resolve(io.cwd, flagValue(parsed, 'workspace') ?? '.');
    const judging = command.startsWith('policy ');
    if (command !== 'run' && command !== 'policy explain' && parsed.positionals.length > 0) throw new UsageError(`${command} takes no arguments; got ${parsed.positionals.join(' ')}.`);
    // The MCP SDK and the providers load only for the commands that use them.
    const run = command === 'run' ? await import('./runCommand') : undefined;
    const approve = run ? run.approvedReasons(flagValues(parsed, 'approve')) : new Set<string>();
    workspace = await CliWorkspace.open({ root, choices, log, allEnabled: judging, watch: command === 'mcp' });
    if (command !== 'undo' && !judging) for (const unknown of workspace.unknownChoices()) log.warn(`${unknown}: this workspace's toolbelt.tools.registry does not name it.`);
    switch (command) {
      case 'mcp':
        return await serveMcp(workspace, io, log, !hasFlag(parsed, 'no-builtins'));
      case 'run':
        return await run!.runPrompt(workspace, {
          prompt: parsed.positionals.join(' '),
          json: hasFlag(parsed, 'json'),
          approve,
          ...optional(parsed, { provider: 'provider', model: 'model', baseUrl: 'base-url', apiKey: 'api-key' }),
          env: io.env,
          stdout: io.stdout,
          stderr: io.stderr,
          signal: io.signal,
        });
      case 'policy explain':
        return print(io, await policyExplain(workspace, parsed.positionals, hasFlag(parsed, 'json')));
      case 'policy test':
        return print(io, await policyTest(workspace, hasFlag(parsed, 'agents') ? { choices, env: io.env } : undefined));
      default:
        return print(io, await undoLastGroup(workspace));
    }
  } catch (error) {
    if (error instanceof UsageError) return write(io.stderr, `toolbelt: ${terminalText(error.message)}\nRun toolbelt --help for the options.\n`, EXIT.usage);
    log.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT.failed;
  } finally {
    await workspace?.close().catch(() => undefined);
  }
}

/** Serves MCP on stdin/stdout until the client closes the stream (or the process is stopped). */
async function serveMcp(workspace: CliWorkspace, io: CliIo, log: CliLog, builtins: boolean): Promise<number> {
  const [{ ToolbeltMcpServer }, { BoundedStdioServerTransport }] = await Promise.all([import('./mcpServer'), import('./mcpStdio')]);
  const server = new ToolbeltMcpServer(workspace, { log, version: version(), builtins });
  // Not the SDK's StdioServerTransport: one message over its 10 MB buffer ended the server (exit 0).
  const transport = new BoundedStdioServerTransport(io.stdin, io.stdout, { warn: (message) => log.warn(message) });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    io.stdin.once('end', resolve);
    io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  log.info(`Serving ${workspace.root} over MCP (stdio); undo records and the call log are in ${workspace.stateDir}.`);
  await closed;
  await server.close().catch(() => undefined);
  return EXIT.ok;
}

function optional(parsed: ParsedArgs, names: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, flag] of Object.entries(names)) {
    const value = flagValue(parsed, flag);
    if (value !== undefined) values[key] = value;
  }
  return values;
}

function print(io: CliIo, result: { output: string; code: number }): number {
  return write(io.stdout, result.output, result.code);
}

function write(stream: Writable, text: string, code: number): number {
  stream.write(text);
  return code;
}

/** Toolbelt's version, from the package.json beside the bundle (dist/) or the sources. */
export function version(): string {
  for (const candidate of [path.join(__dirname, '..', 'package.json'), path.join(__dirname, '..', '..', '..', 'package.json')]) {
    try {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'toolbelt' && pkg.version) return pkg.version;
    } catch {
      // not this one
    }
  }
  return 'unknown';
}
