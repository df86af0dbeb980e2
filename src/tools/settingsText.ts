import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { lineOf } from './settingsLocations';

/**
 * The values of a settings.json text (JSONC); problems name the line. Here, below the CLI and the
 * extension, so both read a workspace's policy the same way (src/cli/settingsFiles.ts re-exports it).
 */
export function parseSettingsText(text: string, label: string): { values: Record<string, unknown>; problems: string[] } {
  if (text.trim() === '') return { values: {}, problems: [] };
  const errors: ParseError[] = [];
  const root: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const problems = errors.map((e) => `${label}:${lineOf(text, e.offset)}: ${printParseErrorCode(e.error)}.`);
  if (!root || typeof root !== 'object' || Array.isArray(root)) {
    return { values: {}, problems: [...problems, `${label}: a settings file must hold one JSON object.`] };
  }
  return { values: root as Record<string, unknown>, problems };
}
