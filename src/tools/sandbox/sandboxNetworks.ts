import { AllowListProxy } from './sandboxProxy';
import { NetworkRelay, type RelayTools } from './sandboxRelay';

/** How long an allow-list network nobody uses is kept for the next command. */
export const NETWORK_IDLE_MS = 60_000;

/** One allow-list network in use: the words that enter it, and the release once the command is over. */
export interface NetworkLease {
  enter(): string[];
  release(): Promise<void>;
}

interface SharedNetwork {
  proxy: AllowListProxy;
  relay: NetworkRelay;
  users: number;
  idle?: NodeJS.Timeout;
}

const networks = new Map<string, Promise<SharedNetwork>>();

/**
 * The allow-list network for a workspace and a list of hosts: its proxy and relay are started once
 * and kept while commands use them, and for NETWORK_IDLE_MS after (starting them is most of what
 * the allow-list costs a command). A relay that has stopped is replaced. Commands of one
 * workspace with the same list share one network namespace, holding only a loopback and the relay.
 */
export async function acquireNetwork(workspace: string, allowed: readonly string[], tools: RelayTools, masked: readonly string[]): Promise<NetworkLease> {
  const key = JSON.stringify([workspace, [...allowed].sort(), masked]);
  for (;;) {
    let pending = networks.get(key);
    if (!pending) {
      pending = startNetwork(allowed, tools, masked);
      networks.set(key, pending);
      pending.catch(() => networks.delete(key));
    }
    const network = await pending;
    if (!alive(network)) {
      if (networks.get(key) === pending) networks.delete(key);
      void closeNetwork(network);
      continue;
    }
    network.users++;
    if (network.idle) clearTimeout(network.idle);
    network.idle = undefined;
    let released = false;
    return {
      enter: () => network.relay.enter(),
      release: async () => {
        if (released) return;
        released = true;
        if (--network.users > 0) return;
        network.idle = setTimeout(() => {
          if (network.users > 0) return;
          if (networks.get(key) === pending) networks.delete(key);
          void closeNetwork(network);
        }, NETWORK_IDLE_MS);
        network.idle.unref();
      },
    };
  }
}

/** Stops every network no command uses now (tests, and the extension's deactivation). */
export async function closeIdleNetworks(): Promise<void> {
  const all = await Promise.all([...networks.entries()].map(async ([key, pending]) => [key, await pending.catch(() => undefined)] as const));
  await Promise.all(
    all.map(async ([key, network]) => {
      if (!network || network.users > 0) return;
      networks.delete(key);
      if (network.idle) clearTimeout(network.idle);
      await closeNetwork(network);
    }),
  );
}

async function startNetwork(allowed: readonly string[], tools: RelayTools, masked: readonly string[]): Promise<SharedNetwork> {
  const proxy = await AllowListProxy.start(allowed);
  try {
    const relay = await NetworkRelay.start(tools, proxy.socketPath, masked);
    // A kept network must not keep the process alive: the commands using it do that.
    proxy.unref();
    relay.unref();
    return { proxy, relay, users: 0 };
  } catch (error) {
    await proxy.close();
    throw error;
  }
}

function alive(network: SharedNetwork): boolean {
  try {
    network.relay.enter();
    return true;
  } catch {
    return false;
  }
}

async function closeNetwork(network: SharedNetwork): Promise<void> {
  await network.relay.close();
  await network.proxy.close();
}
