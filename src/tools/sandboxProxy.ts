import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** Whether `host` is one of `allowed`: `example.com` is that host, `*.example.com` any host under it. */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  if (!name) return false;
  return allowed.some((entry) => {
    const rule = normalizeHost(entry);
    if (!rule) return false;
    if (rule.startsWith('*.')) return name.endsWith(rule.slice(1)) && name.length > rule.length - 1;
    return name === rule;
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

const REFUSED = (host: string) => `Toolbelt's sandbox refused a connection to ${host}: it is not in toolbelt.sandbox.allowedDomains.\n`;

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
    if (!target || !domainAllowed(target.host, allowed)) {
      const body = REFUSED(target?.host ?? String(request.url));
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    const upstream = net.connect(target.port, target.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
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
    if (!url || url.protocol !== 'http:' || !domainAllowed(url.hostname, allowed)) {
      response.writeHead(403, { 'Content-Type': 'text/plain', Connection: 'close' }).end(REFUSED(url?.hostname ?? String(request.url)));
      return;
    }
    const headers = { ...request.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: url.hostname, port: url.port || 80, path: `${url.pathname}${url.search}`, method: request.method, headers }, (answer) => {
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
