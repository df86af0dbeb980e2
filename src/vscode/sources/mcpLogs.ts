import * as vscode from 'vscode';
import type { McpLogger } from '../../tools/mcp';

/** One log per server ("Toolbelt MCP: <server>"), made when it first has something to say. */
export class McpLogs implements vscode.Disposable {
  private readonly channels = new Map<string, vscode.LogOutputChannel>();

  channel(server: string): vscode.LogOutputChannel {
    let channel = this.channels.get(server);
    if (!channel) {
      channel = vscode.window.createOutputChannel(`Toolbelt MCP: ${server}`, { log: true });
      this.channels.set(server, channel);
    }
    return channel;
  }

  /** A server's logger; warnings and errors also reach the main Toolbelt log, naming the server. */
  logger(server: string, main: vscode.LogOutputChannel): McpLogger {
    return {
      info: (message) => this.channel(server).info(message),
      warn: (message) => (this.channel(server).warn(message), main.warn(message)),
      error: (message) => (this.channel(server).error(message), main.error(message)),
    };
  }

  show(server: string): void {
    this.channel(server).show(true);
  }

  dispose(): void {
    for (const channel of this.channels.values()) channel.dispose();
    this.channels.clear();
  }
}
