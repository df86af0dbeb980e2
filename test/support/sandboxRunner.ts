import { readFileSync } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { SANDBOX_UNAVAILABLE_VARIABLE } from '../../src/tools/sandbox/sandboxAvailability';
import type { CommandPolicy, ConfirmationReason, SandboxSetting, ToolContext } from '../../src/tools/types';

/**
 * One run_bash call of the hostile sandbox suite. The suite bundles this file into its fixture
 * folder and runs it, with a scripted environment, once as root and once under `setpriv` as uid
 * 65534; the effects are checked on the host afterwards, not here.
 */
export interface SandboxJob {
  id: string;
  workspaceRoot: string;
  command: string;
  sandbox?: SandboxSetting;
  commandPolicy?: CommandPolicy;
  sensitiveGlobs?: string[];
  /** The person's answer to every confirmation; absent: no confirm hook at all. */
  answer?: boolean;
  timeoutSeconds?: number;
  /** Run with TOOLBELT_SANDBOX_UNAVAILABLE=1. */
  unavailable?: boolean;
}

export interface SandboxJobResult {
  id: string;
  result: string;
  /** Why each confirmation asked, in order. */
  asked: ConfirmationReason[];
}

export async function runSandboxJob(job: SandboxJob): Promise<SandboxJobResult> {
  const asked: ConfirmationReason[] = [];
  const ctx: ToolContext = {
    systemPrompt: '',
    sessionContext: '',
    sessionContextFilePath: '.toolbelt/session-context.md',
    workspaceRoot: job.workspaceRoot,
    ...(job.sandbox && { sandbox: job.sandbox }),
    ...(job.commandPolicy && { commandPolicy: job.commandPolicy }),
    ...(job.sensitiveGlobs && { sensitiveGlobs: job.sensitiveGlobs }),
    ...(job.answer !== undefined && {
      confirm: async (request) => {
        asked.push(request.reason);
        return job.answer!;
      },
    }),
  };
  if (job.unavailable) process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
  else delete process.env[SANDBOX_UNAVAILABLE_VARIABLE];
  const registry = createDefaultToolRegistry(ctx);
  registry.enable('run_bash');
  const result = await registry.execute('run_bash', { command: job.command, timeoutSeconds: job.timeoutSeconds ?? 20 });
  return { id: job.id, result, asked };
}

/** `node sandboxRunner.js jobs.json`: runs the jobs one after another, prints their results as JSON. */
async function main(): Promise<void> {
  const jobs = JSON.parse(readFileSync(process.argv[2], 'utf8')) as SandboxJob[];
  const results: SandboxJobResult[] = [];
  for (const job of jobs) results.push(await runSandboxJob(job));
  process.stdout.write(JSON.stringify(results));
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  });
}
