import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConfirmationRequest, ToolContext } from '../../src/tools/types';

/** A real temporary folder laid out from a map of relative path → file content. */
export class TempWorkspace {
  private constructor(readonly parent: string, readonly root: string) {}

  /** Creates `<tmp>/toolbelt-XXXX/workspace` so tests can also place files just outside it. */
  static async create(files: Record<string, string> = {}): Promise<TempWorkspace> {
    const parent = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-')));
    const root = path.join(parent, 'workspace');
    await fs.mkdir(root);
    const ws = new TempWorkspace(parent, root);
    await ws.write(files);
    return ws;
  }

  async write(files: Record<string, string>): Promise<void> {
    for (const [relative, content] of Object.entries(files)) {
      const file = path.join(this.root, relative);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
    }
  }

  path(...segments: string[]): string {
    return path.join(this.root, ...segments);
  }

  read(relative: string): Promise<string> {
    return fs.readFile(this.path(relative), 'utf8');
  }

  async exists(relative: string): Promise<boolean> {
    return fs.lstat(this.path(relative)).then(() => true, () => false);
  }

  async dispose(): Promise<void> {
    await fs.rm(this.parent, { recursive: true, force: true });
  }
}

export interface TestContext extends ToolContext {
  systemPrompt: string;
  sessionContext: string;
  sessionContextFilePath: string;
  confirmations: ConfirmationRequest[];
}

/** A ToolContext over a workspace; `answer` scripts the user's replies to confirmations. */
export function contextFor(
  workspace: TempWorkspace | string,
  extra: Partial<ToolContext> & { answer?: boolean | ((r: ConfirmationRequest) => boolean) } = {},
): TestContext {
  const { answer, ...rest } = extra;
  const confirmations: ConfirmationRequest[] = [];
  const ctx: TestContext = {
    systemPrompt: 'You are a test.',
    sessionContext: '',
    sessionContextFilePath: '.toolbelt/session-context.md',
    workspaceRoot: typeof workspace === 'string' ? workspace : workspace.root,
    confirmations,
    ...rest,
  };
  if (answer !== undefined) {
    ctx.confirm = async (request) => {
      confirmations.push(request);
      return typeof answer === 'function' ? answer(request) : answer;
    };
  }
  return ctx;
}

/** The ripgrep binary of the npm package @vscode/ripgrep-universal (no download at install). */
export function bundledRipgrep(): string {
  const platform = `${process.platform}-${process.arch}`;
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  return path.resolve(__dirname, '../../../node_modules/@vscode/ripgrep-universal/bin', platform, exe);
}
