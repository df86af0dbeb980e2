import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main';

/** What one in-process CLI run printed, and its exit code. */
export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs the CLI's `runCli` in this process (the code `dist/cli.js` runs), with its output collected. */
export async function runCliInProcess(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<InProcessResult> {
  const stdout = new Collect();
  const stderr = new Collect();
  const code = await runCli(argv, { stdin: Readable.from([]), stdout, stderr, env, cwd: process.cwd() });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
