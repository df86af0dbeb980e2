import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { AllowListProxy, upstreamProxyFor } from '../../src/tools/sandbox/sandboxProxy';

/** The editor's own proxy: it records each request it gets, answers plain HTTP itself, and for CONNECT plays the far end. */
class UpstreamProxy {
  readonly seen: string[] = [];
  private constructor(private readonly server: http.Server, readonly port: number) {}

  static async start(): Promise<UpstreamProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const upstream = new UpstreamProxy(server, (server.address() as net.AddressInfo).port);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      upstream.seen.push(`${request.method} ${request.url}`);
      response.end('via-upstream');
    });
    server.on('connect', (request: http.IncomingMessage, socket: net.Socket) => {
      upstream.seen.push(`CONNECT ${request.url}`);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 13\r\nConnection: close\r\n\r\nvia-tunnel-ok'));
    });
    return upstream;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Sends raw bytes to the allow-list proxy's Unix socket; everything it answered, once it closes. */
function ask(proxy: AllowListProxy, bytes: string, thenSend?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.socketPath, () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (thenSend && answer.includes('200 Connection Established\r\n\r\n') && !answer.includes('via-tunnel')) socket.write(thenSend);
    });
    socket.on('error', reject).on('close', () => resolve(answer));
  });
}

describe("sandbox: the allow-list proxy goes through the editor's own proxy (HTTPS_PROXY / HTTP_PROXY)", () => {
  const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
  let upstream: UpstreamProxy;
  let proxy: AllowListProxy;

  beforeEach(async () => {
    upstream = await UpstreamProxy.start();
    process.env.HTTPS_PROXY = process.env.HTTP_PROXY = `http://127.0.0.1:${upstream.port}`;
    process.env.NO_PROXY = 'internal.example';
    proxy = await AllowListProxy.start(['api.example.test', 'internal.example']);
  });
  afterEach(async () => {
    await proxy.close();
    await upstream.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('forwards a listed host through the editor\'s proxy, by name (a name this machine cannot resolve included), for plain HTTP and for TLS', async () => {
    const plain = await ask(proxy, 'GET http://api.example.test/plain HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n');
    assert.match(plain, /via-upstream/);
    const tunnel = await ask(proxy, 'CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n', 'GET / HTTP/1.1\r\nHost: api.example.test\r\n\r\n');
    assert.match(tunnel, /via-tunnel-ok/);
    assert.deepEqual(upstream.seen, ['GET http://api.example.test:80/plain', 'CONNECT api.example.test:443']);
  });

  it('never hands the editor\'s proxy a host the list refuses, nor a host NO_PROXY names', async () => {
    const refused = await ask(proxy, 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
    assert.match(refused, /^HTTP\/1\.1 403 /);
    const bypassed = await ask(proxy, 'GET http://internal.example/x HTTP/1.1\r\nHost: internal.example\r\nConnection: close\r\n\r\n');
    assert.doesNotMatch(bypassed, /via-upstream/, 'NO_PROXY: the direct route (where this reserved name resolves nowhere)');
    assert.deepEqual(upstream.seen, []);
  });

  it('reads HTTPS_PROXY for TLS and HTTP_PROXY for plain HTTP, and NO_PROXY by domain', () => {
    const env = { HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'proxy.corp:8080', NO_PROXY: '.corp.example, localhost' };
    assert.deepEqual(upstreamProxyFor('api.github.com', 'tls', env), { host: 'proxy.corp', port: 3128 });
    assert.deepEqual(upstreamProxyFor('api.github.com', 'http', env), { host: 'proxy.corp', port: 8080 });
    assert.equal(upstreamProxyFor('git.corp.example', 'tls', env), undefined);
    assert.equal(upstreamProxyFor('anything', 'tls', {}), undefined);
  });
});
