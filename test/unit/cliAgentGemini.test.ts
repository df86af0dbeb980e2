import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { mergeAgentConfig } from '../../src/tools/agents/agentConfigs';
import { CliFixture } from '../support/cliFixture';
import { builtCli, REPO_ROOT } from '../support/cliProcess';
import { ModelServer, type RecordedRequest, type ScriptedReply } from '../support/modelServer';

/** The version the devDependency pins; the test says so when another one is found. */
const GEMINI_CLI = { name: '@google/gemini-cli', version: '0.61.0' };

/** Gemini CLI's entry script, from the project's node_modules (TOOLBELT_GEMINI_CLI may name the package folder instead). */
function geminiCli(): string {
  const folder = process.env.TOOLBELT_GEMINI_CLI || path.join(REPO_ROOT, 'node_modules', ...GEMINI_CLI.name.split('/'));
  const manifest = path.join(folder, 'package.json');
  if (!existsSync(manifest)) {
    throw new Error(`${GEMINI_CLI.name} is not installed (looked in ${folder}): add it as a devDependency ("${GEMINI_CLI.name}": "${GEMINI_CLI.version}") and run npm install.`);
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin: Record<string, string> };
  return path.join(folder, pkg.bin.gemini);
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

const declared = (request: RecordedRequest) =>
  ((request.body.tools ?? []) as { functionDeclarations?: { name: string; parameters?: unknown; parametersJsonSchema?: unknown }[] }[]).flatMap((t) => t.functionDeclarations ?? []);

describe(`A real agent CLI (${GEMINI_CLI.name}) connected to toolbelt mcp`, function () {
  this.timeout(120_000);
  let fixture: CliFixture;
  let model: ModelServer;
  let home: string;
  let bin: string;

  before(async () => {
    fixture = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'write_file' }] }, files: { 'src/a.txt': 'alpha\n' } });
    model = await ModelServer.start();
    // Gemini CLI's own per-user files in a home of the test's: an API key sign-in, no update checks or telemetry, the folder trusted.
    home = path.join(fixture.ws.parent, 'home');
    await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
    const geminiSettings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
    await fs.writeFile(path.join(home, '.gemini', 'settings.json'), JSON.stringify(geminiSettings));
    await fs.writeFile(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [fixture.root]: 'TRUST_FOLDER' }));
    // `toolbelt` on PATH as a teammate has it (the extension's launcher, or npm install -g): a shim that runs the built CLI.
    bin = path.join(fixture.ws.parent, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'toolbelt'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli())} "$@"\n`, { mode: 0o755 });
    // The workspace's .gemini/settings.json as the extension's generator writes it — `toolbelt mcp` from PATH, serving the folder
    // Gemini CLI runs in — with the test's state folder named explicitly, and Gemini's own confirmation off ("trust"):
    // Toolbelt's policy is what decides here.
    const config = mergeAgentConfig('gemini-cli', undefined, { extraArgs: ['--state-dir', fixture.stateBase] });
    assert.deepEqual((JSON.parse(config) as { mcpServers: { toolbelt: unknown } }).mcpServers.toolbelt, { command: 'toolbelt', args: ['mcp', '--state-dir', fixture.stateBase] });
    const trusted = applyEdits(config, modify(config, ['mcpServers', 'toolbelt', 'trust'], true, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
    await fixture.ws.write({ '.gemini/settings.json': trusted });
  });
  after(async () => {
    await model.close();
    await fixture.dispose();
  });

  it("lists Toolbelt's tools to its model, runs an allowed call, and gets the protected one refused with how to allow it", async () => {
    const cli = geminiCli();
    model.setFallback((request): ScriptedReply => {
      const contents = (request.body.contents ?? []) as { parts?: { functionResponse?: unknown }[] }[];
      if (contents.at(-1)?.parts?.some((part) => part.functionResponse)) return { text: 'All done.' };
      if (!declared(request).some((d) => d.name === 'mcp_toolbelt_write_file')) return { text: 'No tools.' };
      return {
        toolCalls: [
          { name: 'mcp_toolbelt_write_file', arguments: { path: 'notes/from-gemini.txt', content: 'hello' } },
          { name: 'mcp_toolbelt_write_file', arguments: { path: '.vscode/evil.json', content: '{}' } },
        ],
      };
    });
    const result = await run(process.execPath, [cli, '-p', 'Write the notes', '-m', 'gemini-2.5-flash', '--output-format', 'json', '--approval-mode', 'yolo'], {
      cwd: fixture.root,
      env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: model.origin, NO_COLOR: '1' },
    });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.equal((JSON.parse(result.stdout) as { response: string }).response, 'All done.');

    const first = model.requests.find((r) => declared(r).some((d) => d.name.startsWith('mcp_toolbelt_')))!;
    assert.deepEqual(declared(first).filter((d) => d.name.startsWith('mcp_toolbelt_')).map((d) => d.name).sort(), ['mcp_toolbelt_read_file', 'mcp_toolbelt_write_file']);
    assert.match(JSON.stringify(declared(first).find((d) => d.name === 'mcp_toolbelt_write_file')), /"content"/);

    assert.equal(await fixture.ws.read('notes/from-gemini.txt'), 'hello');
    assert.equal(await fixture.ws.exists('.vscode/evil.json'), false);
    const answers = JSON.stringify(model.requests.at(-1)!.body.contents);
    assert.match(answers, /cannot ask the person/);
    const log = await fixture.callLog();
    assert.deepEqual(log.map((r) => [r.tool, r.args.path, r.status]).sort(), [
      ['write_file', '.vscode/evil.json', 'refused'],
      ['write_file', 'notes/from-gemini.txt', 'ok'],
    ]);
    assert.ok(log.every((r) => r.caller === log[0].caller && /gemini/i.test(r.caller ?? '')), JSON.stringify(log));
  });
});
