import { terminalText } from '../common/visibleText';

/** Where the CLI says what it does: stderr, so stdout stays the answer (or the MCP stream). */
export interface CliLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Lines on a stream, each starting `toolbelt:`; info only when `verbose`. Messages carry names
 * from elsewhere (servers, clients, tools): their hidden characters are shown as escapes, and the
 * lines after a message's first are indented, so no message forges a `toolbelt:` line.
 */
export function streamLog(stream: { write(text: string): unknown }, verbose: boolean): CliLog {
  const line = (level: string, message: string) => void stream.write(`toolbelt: ${level}${terminalText(message).replace(/\r?\n/g, '$&  ')}\n`);
  return {
    info: (message) => verbose && line('', message),
    warn: (message) => line('warning: ', message),
    error: (message) => line('error: ', message),
  };
}

/** A log that keeps its lines (tests, and commands that print them later). */
export function memoryLog(): CliLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => void lines.push(`info: ${m}`), warn: (m) => void lines.push(`warning: ${m}`), error: (m) => void lines.push(`error: ${m}`) };
}
