import { BuiltinTool, type ToolHandler } from './builtinTool';
import { calculator } from './calculator';
import { getCurrentDatetime } from './datetime';
import { listDir, makeDirectory, move, readFile, remove, writeFile } from './fileSystem';
import { BUILTIN_MANIFEST } from './manifest';
import { ToolRegistry } from './registry';
import { searchFiles, searchText } from './search';
import { saveSessionContext } from './sessionContext';
import { runBash } from './shell';
import type { ToolContext, ToolDefinition } from './types';
import { generateUuid } from './uuid';

/** Manifest `handler` names → implementations. */
const HANDLERS: Readonly<Record<string, ToolHandler>> = Object.freeze({
  calculator,
  datetime: getCurrentDatetime,
  uuid: generateUuid,
  readFile,
  writeFile,
  listDir,
  mkdir: makeDirectory,
  move,
  remove,
  searchText,
  searchFiles,
  saveSessionContext,
  runBash,
});

/** Binds a manifest entry to its implementation and a workspace. */
export function createBuiltinTool(definition: ToolDefinition, context: ToolContext, descriptionOverride?: string): BuiltinTool {
  const handler = HANDLERS[definition.handler];
  if (!handler) throw new Error(`Builtin "${definition.name}" names handler "${definition.handler}", which does not exist`);
  return new BuiltinTool(definition, handler, context, descriptionOverride);
}

/** A registry with every builtin registered; destructive ones (remove, run_bash) start disabled. */
export function createDefaultToolRegistry(context: ToolContext): ToolRegistry {
  const registry = new ToolRegistry();
  for (const definition of BUILTIN_MANIFEST) {
    registry.register(createBuiltinTool(definition, context));
    if (!definition.enabledByDefault) registry.disable(definition.name);
  }
  return registry;
}
