import { vscode } from './shellVscode';
import type * as HostModule from './host';
import type { Host, ShellParts } from './shellParts';

/**
 * The shell's side of the split: loads dist/host.js (services, tree, chat, commands) the first
 * time a stand-in (src/vscode/standIns.ts) is used, synchronously and once, and hands it what the
 * shell registered. Nothing of the host's code is imported here at run time (types only):
 * esbuild.js fails the build when a module lands in both bundles.
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

  /** Loads the host if needed; `reason` names what needed it, for the log. */
  load(reason: string): Host {
    if (this.host) return this.host;
    if (this.failure) throw this.failure;
    if (this.loading || !this.parts) throw new Error(`Toolbelt's host is still starting; ${reason} was used too early.`);
    this.loading = true;
    const loadStarted = performance.now();
    // The host registers the same command ids; these step aside in the same tick, so no call falls between.
    vscode.Disposable.from(...this.parts.commandStandIns.splice(0)).dispose();
    try {
      // A computed path keeps esbuild from inlining the host into the shell; no node:path, which
      // would be one more require through the extension host's interceptors at activation.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { startHost } = require(`${__dirname}/host.js`) as typeof HostModule;
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
