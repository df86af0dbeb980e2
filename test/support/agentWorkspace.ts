import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { stateDirFor } from '../../src/cli/stateDir';
import { parseLines, type ToolCallRecord } from '../../src/tools/toolCallLog';
import { installHook, toolbeltShim, type RealAgent } from './agentHooks';
import { builtCli } from './cliProcess';
import { ModelServer } from './modelServer';
import { findAgent, layOut, PERSON_POLICY, WORKSPACE_POLICY } from './realAgents';
import { TempWorkspace } from './workspace';

/**
 * One real agent's run place: the workspace (secret, data, settings), beside it a home of the
 * agent's own, Toolbelt's state folder and the person's settings file, and — with Toolbelt — the
 * agent's hook configuration and a `toolbelt` on PATH.
 */
export class AgentWorkspace {
  /** The user the agent runs as when not this process's (uid = gid); see `runAs`. */
  private owner: number | undefined;

  private constructor(
    readonly ws: TempWorkspace,
    /** `toolbelt` is on the agent's PATH. */
    readonly toolbeltOnPath: boolean,
  ) {}

  /**
   * `withToolbelt`: the agent's hook runs `hookCommand` (default `toolbelt hook <agent>`) and — unless
   * `shim` is false, to play a machine without it — `toolbelt` is on PATH.
   */
  static async create(
    agent: RealAgent,
    options: { withToolbelt: boolean; settings?: Record<string, unknown> | string; hookCommand?: string; shim?: boolean },
  ): Promise<AgentWorkspace> {
    const ws = await TempWorkspace.create();
    const place = new AgentWorkspace(ws, options.withToolbelt && options.shim !== false);
    await layOut(ws.root, options.settings ?? WORKSPACE_POLICY);
    await fs.mkdir(place.home, { recursive: true });
    await fs.writeFile(place.userSettings, JSON.stringify(PERSON_POLICY, null, 2));
    if (options.withToolbelt) await installHook(agent, ws.root, options.hookCommand);
    if (place.toolbeltOnPath) await toolbeltShim(place.bin);
    return place;
  }

  /**
   * Hands the whole place (workspace, home, state, settings) to `uid` (gid the same), so the agent
   * and its hook can run as that user; call after writing the agent's own files into the home.
   */
  runAs(uid: number): { uid: number; gid: number } {
    execFileSync('chown', ['-R', `${uid}:${uid}`, this.ws.parent]);
    this.owner = uid;
    return { uid, gid: uid };
  }

  /** The user the agent runs as, when `runAs` gave the place away. */
  get user(): { uid: number; gid: number } | undefined {
    return this.owner === undefined ? undefined : { uid: this.owner, gid: this.owner };
  }

  get root(): string {
    return this.ws.root;
  }
  get home(): string {
    return path.join(this.ws.parent, 'home');
  }
  get bin(): string {
    return path.join(this.ws.parent, 'bin');
  }
  get stateBase(): string {
    return path.join(this.ws.parent, 'state');
  }
  get userSettings(): string {
    return path.join(this.ws.parent, 'user-settings.json');
  }
  /** Where `../outside.txt` from the workspace lands. */
  get outside(): string {
    return path.join(this.ws.parent, 'outside.txt');
  }

  /** The environment every agent gets: PATH (with `toolbelt` first when installed), its home, and where Toolbelt keeps its state and finds the person's settings. */
  env(extra: Record<string, string>): NodeJS.ProcessEnv {
    const base = { PATH: this.toolbeltOnPath ? `${this.bin}${path.delimiter}${process.env.PATH}` : process.env.PATH, HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8' };
    return { ...base, TOOLBELT_STATE_DIR: this.stateBase, TOOLBELT_USER_SETTINGS: this.userSettings, ...extra };
  }

  async exists(relative: string): Promise<boolean> {
    return this.ws.exists(relative);
  }

  read(relative: string): Promise<string> {
    return this.ws.read(relative);
  }

  async outsideExists(): Promise<boolean> {
    return fs.lstat(this.outside).then(() => true, () => false);
  }

  /** The call log `toolbelt hook` writes for this workspace. */
  get callLogFile(): string {
    return path.join(stateDirFor(this.root, this.stateBase), 'tool-calls.jsonl');
  }

  /** What `toolbelt hook` wrote to the call log. */
  async callLog(): Promise<ToolCallRecord[]> {
    return parseLines(await fs.readFile(this.callLogFile, 'utf8').catch(() => ''));
  }

  dispose(): Promise<void> {
    return this.ws.dispose();
  }
}

/** What a real agent's suite shares: its scripted model server, and workspaces made for it. */
export interface RealAgentSuite {
  /** The scripted model server (started before the suite's tests). */
  readonly model: ModelServer;
  /** A workspace for one run, disposed after the suite. */
  place(withToolbelt: boolean, settings?: Record<string, unknown> | string, hook?: { hookCommand?: string; shim?: boolean }): Promise<AgentWorkspace>;
}

/**
 * Registers, in the calling `describe`, what every real agent's suite needs: it skips the suite,
 * saying why, when the agent's CLI package is not installed (an environment guard only: CI installs
 * the devDependencies), builds on dist/cli.js, starts a model server and disposes the workspaces.
 */
export function realAgentSuite(agent: RealAgent): RealAgentSuite {
  const found = findAgent(agent);
  const places: AgentWorkspace[] = [];
  let model: ModelServer | undefined;
  before(async function () {
    if ('missing' in found) skipBecause(this, found.missing);
    builtCli();
    model = await ModelServer.start();
  });
  after(async () => {
    await model?.close();
    await Promise.all(places.map((p) => p.dispose()));
  });
  return {
    get model(): ModelServer {
      if (!model) throw new Error('the model server starts in the suite\'s before hook');
      return model;
    },
    async place(withToolbelt, settings, hook = {}) {
      const p = await AgentWorkspace.create(agent, { withToolbelt, settings, ...hook });
      places.push(p);
      return p;
    },
  };
}

/** Skips the test when this process cannot hand files to uid 65534 and switch to it (that needs root). */
export function skipUnlessRoot(context: Mocha.Context): void {
  if (process.getuid?.() !== 0) skipBecause(context, 'switching to uid 65534 needs root');
}

/** An environment guard: says why on the console, then skips. */
function skipBecause(context: Mocha.Context, why: string): never {
  console.log(`      skipped: ${why}`);
  context.skip();
}
