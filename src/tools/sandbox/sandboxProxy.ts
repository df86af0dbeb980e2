import { promises as dns } from 'node:dns';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** One entry of `toolbelt.sandbox.allowedDomains`: `example.com`, `*.example.com`, `host:8443`, `[::1]:8080`. */
interface AllowEntry {
  host: string;
  /** Only this port; none: 443 for TLS (CONNECT), 80 for plain HTTP. */
  port?: number;
}

function parseEntry(entry: string): AllowEntry | undefined {
  const text = entry.trim().toLowerCase();
  const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(text);
  if (match && net.isIPv6(text) === false) {
    const port = Number(match[2]);
    const host = normalizeHost(match[1]);
    return host && port > 0 && port < 65536 ? { host, port } : undefined;
  }
  const host = normalizeHost(text);
  return host ? { host } : undefined;
}

function nameMatches(name: string, rule: string): boolean {
  if (rule.startsWith('*.')) return name.endsWith(rule.slice(1)) && name.length > rule.length - 1;
  return name === rule;
}

/** Whether `host` is named by one of `allowed` (whatever port an entry names): `example.com` is that host, `*.example.com` any host under it. */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  return !!name && allowed.some((entry) => {
    const rule = parseEntry(entry);
    return !!rule && nameMatches(name, rule.host);
  });
}

/** Whether `host:port` may be reached: an entry names the host and that port, or none and the port is the usual one (443 for `tls`, 80 for `http`). */
export function targetAllowed(host: string, port: number, kind: 'tls' | 'http', allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  return !!name && allowed.some((entry) => {
    const rule = parseEntry(entry);
    return !!rule && nameMatches(name, rule.host) && port === (rule.port ?? (kind === 'tls' ? 443 : 80));
  });
}

function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** `host:port` of a CONNECT request, or of an absolute-form URL; undefined when it names none. */
function targetOf(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1].replace(/^\[(.*)\]$/, '$1'), port } : undefined;
}

/** Loopback, private, link-local (the cloud metadata service at 169.254.169.254), shared, ULA, multicast and unspecified addresses. */
const INTERNAL = new net.BlockList();
for (const [address, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3]] as const) INTERNAL.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) INTERNAL.addSubnet(address, prefix, 'ipv6');

export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  return family === 0 ? true : INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The address to connect to for an allowed host, or why not: a name must not resolve to an
 * internal address (a listed name pointed at 127.0.0.1 or the metadata service would open the
 * host's own services); an address literal listed as such may be anything. The connection goes to
 * the address checked here, so a second lookup cannot answer differently.
 */
export async function addressFor(
  host: string,
  lookup: (host: string) => Promise<{ address: string }[]> = (h) => dns.lookup(h, { all: true }),
  upstream?: UpstreamProxy,
): Promise<{ address: string } | { refused: string }> {
  const name = normalizeHost(host);
  if (net.isIP(name)) return { address: name };
  const addresses = await lookup(name).catch(() => []);
  // Behind the editor's proxy, names this machine cannot resolve are the proxy's to resolve: the name goes on.
  if (addresses.length === 0 && upstream) return { address: name };
  if (addresses.length === 0) return { refused: `${name} could not be resolved` };
  const internal = addresses.find((a) => isInternalAddress(a.address));
  if (internal) return { refused: `${name} resolves to ${internal.address}, an address of this machine or its private network; list the address itself in toolbelt.sandbox.allowedDomains to allow it` };
  return { address: addresses[0].address };
}

/** The editor's own proxy (`HTTPS_PROXY` / `HTTP_PROXY`, as curl and npm read them), unless `NO_PROXY` names the host. */
export interface UpstreamProxy {
  host: string;
  port: number;
}

export function upstreamProxyFor(host: string, kind: 'tls' | 'http', env: Readonly<Record<string, string | undefined>> = process.env): UpstreamProxy | undefined {
  const raw = kind === 'tls' ? (env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw.includes('://') ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:') return undefined;
  const name = normalizeHost(host);
  const bypass = (env.NO_PROXY ?? env.no_proxy ?? '').split(',').map((entry) => normalizeHost(entry).replace(/^\*?\./, '')).filter(Boolean);
  if (bypass.includes('*') || bypass.some((entry) => name === entry || name.endsWith(`.${entry}`))) return undefined;
  return { host: normalizeHost(url.hostname), port: Number(url.port || 80) };
}

function refusal(host: string, port: number, kind: 'tls' | 'http', allowed: readonly string[]): string {
  if (domainAllowed(host, allowed)) return `Toolbelt's sandbox refused a connection to ${host}:${port}: only port ${kind === 'tls' ? 443 : 80} is allowed for it; add "${host}:${port}" to toolbelt.sandbox.allowedDomains to allow that port.\n`;
  return `Toolbelt's sandbox refused a connection to ${host}: it is not in toolbelt.sandbox.allowedDomains.\n`;
}

/**
 * The network allow-list of one sandbox: an HTTP proxy (CONNECT for TLS, absolute-form requests
 * for plain HTTP) on a Unix socket in a private folder. Inside, the command has no network but
 * its own loopback, where socat relays 127.0.0.1:3128 to this socket; HTTP(S)_PROXY point there.
 * Hosts outside the list get 403 and no connection is made.
 */
export class AllowListProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly folder: string,
    /** The Unix socket on the host. */
    readonly socketPath: string,
  ) {}

  static async start(allowed: readonly string[]): Promise<AllowListProxy> {
    // Short and private: a Unix socket path has ~100 bytes, and only this user may connect.
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'tbx-'));
    const socketPath = path.join(folder, 'proxy.sock');
    const server = http.createServer();
    const proxy = new AllowListProxy(server, folder, socketPath);
    server.on('connection', (socket: net.Socket) => proxy.track(socket));
    server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => proxy.tunnel(request, client, head, allowed));
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => proxy.forward(request, response, allowed));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    return proxy;
  }

  /** Lets the process exit while the proxy idles; connections in use still hold it. */
  unref(): void {
    this.server.unref();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await fs.rm(this.folder, { recursive: true, force: true });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer, allowed: readonly string[]): void {
    const target = targetOf(request.url ?? '');
    client.on('error', () => client.destroy());
    const refuse = (body: string) => client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    if (!target) return void refuse(`Toolbelt's sandbox refused a connection to ${String(request.url)}: not a host:port.\n`);
    if (!targetAllowed(target.host, target.port, 'tls', allowed)) return void refuse(refusal(target.host, target.port, 'tls', allowed));
    const via = upstreamProxyFor(target.host, 'tls');
    void addressFor(target.host, undefined, via).then((resolved) => {
      if ('refused' in resolved) return void refuse(`Toolbelt's sandbox refused a connection: ${resolved.refused}.\n`);
      // The editor's proxy gets the name (it may judge by name); a direct connection goes to the address checked.
      if (!client.destroyed) this.connectTunnel(client, via ? normalizeHost(target.host) : resolved.address, target.port, head, via);
    });
  }

  private connectTunnel(client: net.Socket, address: string, port: number, head: Buffer, via?: UpstreamProxy): void {
    const established = () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    };
    const upstream = via
      ? net.connect(via.port, via.host, () => {
          // The editor's proxy opens the tunnel; its answer's head is read off before the bytes flow.
          upstream.write(`CONNECT ${net.isIPv6(address) ? `[${address}]` : address}:${port} HTTP/1.1\r\nHost: ${address}:${port}\r\n\r\n`);
          let answer = Buffer.alloc(0);
          const onData = (chunk: Buffer) => {
            answer = Buffer.concat([answer, chunk]);
            const end = answer.indexOf('\r\n\r\n');
            if (end < 0) return answer.length > 16_384 ? upstream.destroy() : undefined;
            upstream.off('data', onData);
            if (!/^HTTP\/1\.[01] 2\d\d/.test(answer.subarray(0, end).toString('latin1'))) {
              if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
              return upstream.destroy();
            }
            established();
            const rest = answer.subarray(end + 4);
            if (rest.length > 0) client.write(rest);
          };
          upstream.on('data', onData);
        })
      : net.connect(port, address, established);
    this.track(upstream);
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
    });
    client.on('close', () => upstream.destroy());
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse, allowed: readonly string[]): void {
    let url: URL | undefined;
    try {
      url = new URL(request.url ?? '');
    } catch {
      url = undefined;
    }
    const refuse = (body: string) => response.writeHead(403, { 'Content-Type': 'text/plain', Connection: 'close' }).end(body);
    const port = url ? Number(url.port || 80) : 80;
    if (!url || url.protocol !== 'http:') return void refuse(`Toolbelt's sandbox refused ${String(request.url)}: only http:// URLs go through the proxy (https goes through CONNECT).\n`);
    if (!targetAllowed(url.hostname, port, 'http', allowed)) return void refuse(refusal(normalizeHost(url.hostname), port, 'http', allowed));
    const via = upstreamProxyFor(url.hostname, 'http');
    void addressFor(url.hostname, undefined, via).then((resolved) => {
      if ('refused' in resolved) return void refuse(`Toolbelt's sandbox refused a connection: ${resolved.refused}.\n`);
      this.sendUpstream(request, response, url, via ? normalizeHost(url.hostname) : resolved.address, port, via);
    });
  }

  private sendUpstream(request: http.IncomingMessage, response: http.ServerResponse, url: URL, address: string, port: number, via?: UpstreamProxy): void {
    const headers = { ...request.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    // Through the editor's proxy: the absolute URL.
    const target = via
      ? { host: via.host, port: via.port, path: `http://${net.isIPv6(address) ? `[${address}]` : address}:${port}${url.pathname}${url.search}` }
      : { host: address, port, path: `${url.pathname}${url.search}` };
    const upstream = http.request({ ...target, method: request.method, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502, { Connection: 'close' });
      response.end();
    });
    request.pipe(upstream);
  }
}
