import { vscode } from './vscode/shellVscode';
import type { ToolbeltApi } from './vscode/api';
import { lazyApi } from './vscode/lazyApi';
import { LazyHost } from './vscode/lazyHost';
import type { ShellParts } from './vscode/shellParts';
import { registerStandIns } from './vscode/standIns';

let host: LazyHost | undefined;

/**
 * The shell: registers what VS Code needs to see now (the views, every contributed command, the
 * participant, the tools the workspace names, the API) as stand-ins, starts presence (the context
 * keys and the model VS Code's chat needs) soon after, and loads the rest (dist/host.js,
 * src/vscode/host.ts) on first use. Toolbelt serves VS Code's own chat, so it activates in every
 * window; this keeps that cheap (docs/ARCHITECTURE.md, "Bundles").
 */
function activate(context: vscode.ExtensionContext): ToolbeltApi {
  const started = performance.now();
  const shell = (host = new LazyHost());
  const parts = (shell.parts = registerStandIns(context, (reason) => shell.load(reason)));
  // VS Code's chat offers the workspace's tools by context keys, and lists Toolbelt's model once
  // asked: presence does both soon after startup, off the activation path.
  const background = setTimeout(() => startQuietly(shell, parts), PRESENCE_DELAY_MS);
  context.subscriptions.push(new vscode.Disposable(() => (clearTimeout(background), vscode.Disposable.from(...parts.commandStandIns.splice(0)).dispose())));
  parts.activationMs = performance.now() - started;
  return lazyApi((member) => shell.load(member).api, parts.activationMs);
}

/** Waits until the chat history and the tool state are on disk (if the host ever loaded); the rest is disposed through context.subscriptions. */
async function deactivate(): Promise<void> {
  const problems = (await host?.loaded?.flush()) ?? [];
  for (const problem of problems) console.error(`Toolbelt: not everything was saved on shutdown: ${problem}`);
}

/** After activation, long enough that the window's own startup work goes first. */
const PRESENCE_DELAY_MS = 1500;

function startQuietly(shell: LazyHost, parts: ShellParts): void {
  try {
    shell.startPresence(parts);
  } catch (error) {
    console.error("Toolbelt: could not take its place in VS Code's chat:", error);
  }
}

// A CommonJS export: with ES `export`s esbuild wraps the bundle's exports in interop helpers that
// would run at every activation.
export = { activate, deactivate };
