/**
 * The sandbox room's entry (its name is in the public contract): whether and how a process runs
 * inside the OS sandbox. Its parts live in src/tools/sandbox/; outside the room, import only this file.
 */
export { PidNamespace } from './sandbox/pidNamespace';
export { processIsolation, type IsolationKind } from './sandbox/processIsolation';
export { isAlive } from './sandbox/processTable';
export { NamespaceKiller, ProcessTracker, type TreeKiller } from './sandbox/processTree';
export * from './sandbox/sandboxAvailability';
export { sandboxEnvironment } from './sandbox/sandboxEnvironment';
export { NO_NETWORK_ENV, sandboxHints } from './sandbox/sandboxHints';
export { hideFromSandboxes, prepareSandbox, sandboxRequestFor, type PreparedSandbox, type SandboxRequest } from './sandbox/sandboxLaunch';
export { SandboxKiller, spawnSandboxed } from './sandbox/sandboxProcess';
export { buildSandboxRules, type SandboxSettingValues } from './sandbox/sandboxSettings';
