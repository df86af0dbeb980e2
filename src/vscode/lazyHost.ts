import { vscode } from './shellVscode';
import type * as HostModule from './host';
import type * as PresenceModule from './nativeChat/presence';
import type { Host, ShellParts } from './shellParts';

/**
 * The shell's side of the split (docs/ARCHITECTURE.md, "Bundles"): starts presence (dist/presence.js:
 * the context keys and the model VS Code's chat needs in every window) when the shell asks or the
 * host needs it, and loads the host (dist/host.js: services, tree, chat, commands) the first time a
 * stand-in (src/vscode/standIns.ts) is used, each synchronously and once, handing over what the
 * shell registered. Their `require`s are stand-ins esbuild.js puts in for the bundles.
 */
export class LazyHost {
  private host: Host | undefined;
  private failure: Error | undefined;
  private loading = false;
  /** Set by activate() once the stand-ins are registered. */
  parts: ShellParts | undefined;

  /** The host, if something has loaded it already (deactivate() flushes only then). */
  get loaded(): Host | undefined {
    return this.host;
  }

  /** Starts presence unless it has started; throws if it cannot. */
  startPresence(parts: ShellParts): void {
    if (parts.presence) return;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded apart, on first use (esbuild.js LOADED_APART)
    const { startPresence } = require('./nativeChat/presence') as typeof PresenceModule;
    parts.presence = startPresence(parts.context, (reason) => this.load(reason));
  }

  /** Loads the host if needed (presence first); `reason` names what needed it, for the log. */
  load(reason: string): Host {
    if (this.host) return this.host;
    if (this.failure) throw this.failure;
    if (this.loading || !this.parts) throw new Error(`Toolbelt's host is still starting; ${reason} was used too early.`);
    this.loading = true;
    const loadStarted = performance.now();
    // The host registers the same command ids; these step aside in the same tick, so no call falls between.
    vscode.Disposable.from(...this.parts.commandStandIns.splice(0)).dispose();
    try {
      this.startPresence(this.parts);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded apart, on first use (esbuild.js LOADED_APART)
      const { startHost } = require('./host') as typeof HostModule;
      this.host = startHost(this.parts, reason, loadStarted);
      return this.host;
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      console.error(`Toolbelt: could not start (${reason}):`, error);
      void vscode.window.showErrorMessage(`Toolbelt could not start: ${this.failure.message}`);
      throw this.failure;
    } finally {
      this.loading = false;
    }
  }
}
