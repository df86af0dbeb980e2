import { BuiltinTool, type BuiltinImplementation } from './builtinTool';
import { calculator } from './calculator';
import { getCurrentDatetime } from './datetime';
import { listDir, readFile } from './fileRead';
import { makeDirectory, move, remove, writeFile } from './fileWrite';
import { BUILTIN_MANIFEST } from './manifest';
import { ToolRegistry } from './registry';
import { searchFiles, searchText } from './search';
import { saveSessionContext } from './sessionContext';
import { runBash } from './shell';
import type { ToolContext, ToolDefinition } from './types';
import { generateUuid } from './uuid';

/** Manifest `handler` names → implementations (a consent function where the tool may ask, and its run). */
const IMPLEMENTATIONS: Readonly<Record<string, BuiltinImplementation>> = Object.freeze({
  calculator: { run: calculator },
  datetime: { run: getCurrentDatetime },
  uuid: { run: generateUuid },
  readFile,
  writeFile,
  listDir,
  mkdir: makeDirectory,
  move,
  remove,
  searchText: { run: searchText },
  searchFiles: { run: searchFiles },
  saveSessionContext,
  runBash,
});

/** Binds a manifest entry to its implementation and a workspace. */
export function createBuiltinTool(definition: ToolDefinition, context: ToolContext, descriptionOverride?: string): BuiltinTool {
  const implementation = IMPLEMENTATIONS[definition.handler];
  if (!implementation) throw new Error(`Builtin "${definition.name}" names handler "${definition.handler}", which does not exist`);
  return new BuiltinTool(definition, implementation, context, descriptionOverride);
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
