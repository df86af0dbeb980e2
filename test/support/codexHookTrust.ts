import { createHash } from 'node:crypto';

/**
 * What Codex records when a person trusts a hook in its /hooks view: per handler, under
 * `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` in their own config.toml, a
 * `trusted_hash` of the handler's normalised identity (event, matcher, the one handler with its
 * defaults filled in: timeout 600 s, async false), as canonical JSON (keys sorted) hashed with
 * SHA-256. Codex 0.169.0 runs an unmanaged hook only when that hash matches (or with
 * --dangerously-bypass-hook-trust); its app-server's hooks/list reports the same `currentHash`.
 */

interface Handler {
  type: string;
  command?: string;
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
}

interface HooksFile {
  hooks: Record<string, { matcher?: string; hooks: Handler[] }[]>;
}

/** Codex's event keys: PreToolUse → pre_tool_use. */
function eventKey(event: string): string {
  return event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The `trusted_hash` Codex expects for one command handler. */
export function codexHookHash(event: string, matcher: string | undefined, handler: Handler): string {
  const normal: Record<string, unknown> = { type: handler.type, command: handler.command, timeout: Math.max(1, handler.timeout ?? 600), async: handler.async ?? false };
  if (handler.statusMessage !== undefined) normal.statusMessage = handler.statusMessage;
  const identity = { event_name: eventKey(event), ...(matcher !== undefined ? { matcher } : {}), hooks: [normal] };
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(identity))).digest('hex')}`;
}

/** config.toml lines that trust every command handler of `hooksFile` (its absolute path `file`). */
export function codexTrustToml(file: string, hooksFile: HooksFile): string {
  const lines: string[] = [];
  for (const [event, groups] of Object.entries(hooksFile.hooks)) {
    groups.forEach((group, g) =>
      group.hooks.forEach((handler, h) => {
        if (handler.type !== 'command') return;
        lines.push(`[hooks.state.${JSON.stringify(`${file}:${eventKey(event)}:${g}:${h}`)}]`, `trusted_hash = ${JSON.stringify(codexHookHash(event, group.matcher, handler))}`);
      }),
    );
  }
  return lines.join('\n') + '\n';
}
