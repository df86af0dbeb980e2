import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { builtin } from './builtinTool';
import { unasked, type ConsentPlan } from './consent';
import { formatBytes, writableFileStat, writeFileAtomic } from './fileSystem';
import { changeQuestions } from './protectedPaths';
import { sensitiveMoveQuestion } from './sensitiveFiles';
import type { ToolContext } from './types';
import { PathRefusedError, resolveWorkspacePath, WorkspacePathError, type ResolvedPath } from './workspacePaths';

// The tools that change files. Each consent function resolves and checks the paths, says what
// needs a person; each run changes only what its consent named (re-checked after any question).

/** A plan that changes `targets` and asks what `changeQuestions` says. */
function changePlan<Prepared>(ctx: ToolContext, tool: string, prepared: Prepared, change: Omit<Parameters<typeof changeQuestions>[1], 'tool'>): ConsentPlan<Prepared> {
  const plan = unasked(tool, prepared, [...change.targets]);
  plan.questions.push(...changeQuestions(ctx, { tool, ...change }));
  return plan;
}

export const writeFile = builtin(
  async (args, ctx, signal) => {
    const target = await resolveWorkspacePath(ctx, args.path, { signal });
    const existed = (await writableFileStat(target)) !== undefined;
    return changePlan(ctx, 'write_file', { target, existed }, { summary: `Write ${target.display}`, targets: [target], content: args.content as string });
  },
  async (args, _ctx, { signal, plan }) => {
    const { target, existed } = plan.prepared;
    const content = args.content as string;
    await writeFileAtomic(target.absolute, content, signal);
    return `${existed ? 'Overwrote' : 'Created'} "${target.display}" (${formatBytes(Buffer.byteLength(content, 'utf8'))}).`;
  },
);

export const makeDirectory = builtin(
  async (args, ctx, signal) => {
    const target = await resolveWorkspacePath(ctx, args.path, { signal });
    const existing = await fs.stat(target.absolute).catch(() => undefined);
    if (existing?.isDirectory()) return unasked('mkdir', { target, exists: true });
    if (existing) throw new WorkspacePathError(`"${target.display}" exists and is a file.`);
    return changePlan(ctx, 'mkdir', { target, exists: false }, { summary: `Create directory ${target.display}`, targets: [target] });
  },
  async (_args, _ctx, { plan }) => {
    const { target, exists } = plan.prepared;
    if (exists) return `Directory "${target.display}" already exists.`;
    await fs.mkdir(target.absolute, { recursive: true });
    return `Created directory "${target.display}".`;
  },
);

export const remove = builtin(
  async (args, ctx, signal) => {
    const target = await resolveWorkspacePath(ctx, args.path, { followFinalLink: false, signal });
    if (target.relative === '') throw new PathRefusedError('Refusing to delete a workspace folder itself.');
    const stat = await fs.lstat(target.absolute).catch(() => undefined);
    if (!stat) throw new WorkspacePathError(`"${target.display}" does not exist.`);
    const recursive = args.recursive === true;
    const isDir = stat.isDirectory();
    if (isDir && !recursive && (await fs.readdir(target.absolute)).length > 0) {
      throw new WorkspacePathError(`Directory "${target.display}" is not empty; pass recursive: true to delete it with everything in it.`);
    }
    const what = isDir ? `directory ${target.display}${recursive ? ' and everything in it' : ''}` : target.display;
    return changePlan(ctx, 'remove', { target, isDir }, { summary: `Delete ${what}`, targets: [target], destructive: true });
  },
  async (_args, _ctx, { plan }) => {
    const { target, isDir } = plan.prepared;
    await fs.rm(target.absolute, { recursive: isDir, force: false });
    return `Deleted ${isDir ? 'directory' : 'file'} "${target.display}".`;
  },
);

interface MovePlan {
  source: ResolvedPath;
  destination: ResolvedPath;
}

export const move = builtin<MovePlan>(
  async (args, ctx, signal) => {
    const source = await resolveWorkspacePath(ctx, args.source, { followFinalLink: false, signal });
    const destination = await resolveWorkspacePath(ctx, args.destination, { followFinalLink: false, signal });
    if (source.relative === '') throw new PathRefusedError('Refusing to move a workspace folder itself.');
    if (!source.exists) throw new WorkspacePathError(`Source "${source.display}" does not exist.`);
    if (source.absolute === destination.absolute) throw new WorkspacePathError('Source and destination are the same path.');
    if (destination.absolute.startsWith(source.absolute + path.sep)) {
      throw new WorkspacePathError(`Cannot move "${source.display}" into itself ("${destination.display}").`);
    }
    if (destination.relative === '') throw new PathRefusedError('Refusing to replace a workspace folder.');
    if (destination.exists && args.overwrite !== true) {
      throw new WorkspacePathError(`Destination "${destination.display}" already exists; pass overwrite: true to replace it.`);
    }
    const isDirectory = (await fs.lstat(source.absolute).catch(() => undefined))?.isDirectory() ?? false;
    const summary = `Move ${source.display} to ${destination.display}${destination.exists ? ' (replacing it)' : ''}`;
    const plan = changePlan(ctx, 'move', { source, destination }, { summary, targets: [source, destination] });
    const sensitive = await sensitiveMoveQuestion(ctx, source, destination, isDirectory, signal);
    if (sensitive) plan.questions.unshift(sensitive);
    return plan;
  },
  async (_args, _ctx, { plan }) => {
    const { source, destination } = plan.prepared;
    await fs.mkdir(path.dirname(destination.absolute), { recursive: true });
    if (destination.exists) await fs.rm(destination.absolute, { recursive: true, force: true });
    try {
      await fs.rename(source.absolute, destination.absolute);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      // Another root on another device: copy, then delete the original.
      await fs.cp(source.absolute, destination.absolute, { recursive: true, errorOnExist: true, verbatimSymlinks: true });
      await fs.rm(source.absolute, { recursive: true });
    }
    return `Moved "${source.display}" to "${destination.display}".`;
  },
);
