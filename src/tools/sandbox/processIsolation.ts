import { spawn } from 'node:child_process';
import { PidNamespace } from './pidNamespace';

export type IsolationKind = 'pid-namespace' | 'process-group';

export interface ProcessIsolation {
  kind: IsolationKind;
  /** A sentence for the log: which mechanism, and how it was chosen. */
  detail: string;
  /** For 'pid-namespace': the `unshare` options that create each command's namespaces (see PidNamespace). */
  unshareArgs?: readonly string[];
}

/** Set to `process-group` to force the fallback (tests, or a machine where namespaces misbehave). */
export const ISOLATION_OVERRIDE_VARIABLE = 'TOOLBELT_PROCESS_ISOLATION';

const NAMESPACE = ['--pid', '--fork', '--kill-child'];

/**
 * Tried in order; the first that really runs bash inside a new PID namespace wins.
 * `--mount-proc` gives the command its own /proc, so `ps`, `pgrep` and `kill` inside see and reach
 * only its own processes (without it they list host pids that `kill` inside cannot address).
 * Root needs no user namespace; other users map their own uid/gid so `id -u` stays the real one.
 */
const CANDIDATES: ReadonlyArray<{ args: string[]; detail: string }> = [
  { args: [...NAMESPACE, '--mount-proc'], detail: 'its own PID namespace and /proc' },
  { args: ['--user', '--map-current-user', ...NAMESPACE, '--mount-proc'], detail: 'its own user (same uid), PID namespace and /proc' },
  { args: ['--user', '--map-current-user', ...NAMESPACE], detail: 'its own user (same uid) and PID namespace; /proc is the host one' },
  { args: NAMESPACE, detail: 'its own PID namespace; /proc is the host one' },
  { args: ['--user', '--map-root-user', ...NAMESPACE, '--mount-proc'], detail: 'its own user (seen as uid 0 inside, the real user outside), PID namespace and /proc' },
];

const PROBE_TIMEOUT_MS = 5000;
let detected: Promise<ProcessIsolation> | undefined;

/**
 * How `run_bash` contains a command's processes on this machine: detected once by trying it, then
 * cached. Pass `force: 'process-group'` (or set TOOLBELT_PROCESS_ISOLATION=process-group) to use the
 * fallback even where a namespace works.
 */
export async function processIsolation(options: { force?: IsolationKind } = {}): Promise<ProcessIsolation> {
  const forced = options.force ?? process.env[ISOLATION_OVERRIDE_VARIABLE];
  if (forced === 'process-group') {
    return { kind: 'process-group', detail: `process group + descendants + environment marker (forced by ${options.force ? 'the caller' : ISOLATION_OVERRIDE_VARIABLE})` };
  }
  detected ??= detect();
  return detected;
}

async function detect(): Promise<ProcessIsolation> {
  if (process.platform !== 'linux') {
    return { kind: 'process-group', detail: `process group + descendants (no PID namespaces on ${process.platform})` };
  }
  for (const candidate of CANDIDATES) {
    if (await works(candidate.args)) {
      return {
        kind: 'pid-namespace',
        detail: `each command runs in ${candidate.detail}: unshare ${candidate.args.join(' ')} holds the namespace, nsenter runs bash -c <command> inside`,
        unshareArgs: candidate.args,
      };
    }
  }
  return {
    kind: 'process-group',
    detail: 'process group + descendants + environment marker (unshare could not create a PID namespace here)',
  };
}

/** Whether a namespace made with these options opens and runs bash inside (not as its pid 1). */
async function works(args: readonly string[]): Promise<boolean> {
  const namespace = await PidNamespace.open(args).catch(() => undefined);
  if (!namespace) return false;
  try {
    return await new Promise<boolean>((resolve) => {
      const probe = spawn('nsenter', [...namespace.enterArgs('/'), '--', 'bash', '-c', 'test "$$" != 1'], { stdio: 'ignore' });
      const timer = setTimeout(() => {
        probe.kill('SIGKILL');
        resolve(false);
      }, PROBE_TIMEOUT_MS);
      probe.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      probe.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
  } finally {
    namespace.end();
  }
}
