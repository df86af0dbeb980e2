import type { Readable, Writable } from 'node:stream';

/** What a CLI run reads and writes: the process's own streams and environment, or a test's. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM. */
  signal?: AbortSignal;
}
