import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { waitFor } from './waitFor';

/** A Unix socket of the host a sandboxed process must not reach: a path, or `@name` in the abstract namespace. */
export interface SocketTarget {
  name: string;
  kind: 'stream' | 'dgram';
  address: string;
}

// Binds every target (sockets mode 0777, so any user could connect), then reports each accepted
// connection and each datagram as `hit <name>` on stdout, the sentinel last of what is waiting.
// Python: Node has no Unix datagram sockets.
const LISTENER = String.raw`
import json, os, select, socket, sys
socks = {}
for t in json.loads(sys.argv[1]):
    a = t['address']
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM if t['kind'] == 'stream' else socket.SOCK_DGRAM)
    s.bind('\0' + a[1:] if a.startswith('@') else a)
    if not a.startswith('@'): os.chmod(a, 0o777)
    if t['kind'] == 'stream': s.listen(64)
    socks[s] = t
print('ready', flush=True)
while True:
    for s in sorted(select.select(list(socks), [], [])[0], key=lambda s: socks[s]['name'] == 'sentinel'):
        t = socks[s]
        if t['kind'] == 'stream': s.accept()[0].close()
        else: s.recv(100)
        print('hit', t['name'], flush=True)
`;

/**
 * What a sandboxed command runs to try every target every way it can: a stream socket, a datagram
 * socket, and a datagram socketpair (which can send to any address); one line per attempt. Python.
 */
export const PYTHON_CLIENT = String.raw`
import json, socket, sys
def attempt(name, how, run):
    try:
        run()
        print(name, how, 'connected')
    except OSError as e:
        print(name, how, 'refused:', e.strerror)
for t in json.loads(sys.argv[1]):
    a = t['address']
    addr = '\0' + a[1:] if a.startswith('@') else a
    if t['kind'] == 'stream':
        attempt(t['name'], 'socket', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(addr))
    else:
        attempt(t['name'], 'socket', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', addr))
        attempt(t['name'], 'socketpair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0].sendto(b'x', addr))
`;

/** The same for Node (stream targets only): how an MCP server or a Node tool would connect. */
export const NODE_CLIENT = String.raw`
const net = require('node:net');
for (const t of JSON.parse(process.argv[2])) {
  if (t.kind !== 'stream') continue;
  const socket = net.connect({ path: t.address.startsWith('@') ? '\0' + t.address.slice(1) : t.address });
  socket.on('connect', () => (console.log(t.name, 'node', 'connected'), socket.destroy()));
  socket.on('error', (e) => console.log(t.name, 'node', 'refused:', e.code));
}
`;

/** The host's listeners on a set of targets, and what reached them. */
export class HostSockets {
  readonly hits: string[] = [];

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly targets: readonly SocketTarget[],
    private readonly sentinel: SocketTarget,
  ) {}

  /** Starts listening on `targets`; `folder` (the test's own, outside every sandbox) holds a sentinel socket. */
  static async start(targets: readonly SocketTarget[], folder: string): Promise<HostSockets> {
    const sentinel: SocketTarget = { name: 'sentinel', kind: 'stream', address: path.join(folder, 'sentinel.sock') };
    const child = spawn('python3', ['-c', LISTENER, JSON.stringify([...targets, sentinel])], { stdio: 'pipe' });
    const sockets = new HostSockets(child, targets, sentinel);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (sockets.errors += chunk));
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready') sockets.ready = true;
        const hit = /^hit (\S+)$/.exec(line);
        if (hit) sockets.hits.push(hit[1]);
      }
    });
    await waitFor(() => sockets.ready || child.exitCode !== null, 'the host listeners');
    if (!sockets.ready) throw new Error(`the host listeners did not start: ${sockets.errors}`);
    return sockets;
  }

  private ready = false;
  private errors = '';

  /** What the listener process is doing, for a failure message. */
  private state(): string {
    const ended = this.child.exitCode ?? this.child.signalCode;
    return `listener ${ended === null ? `running (pid ${this.child.pid})` : `ended (${ended})`}; hits so far: ${JSON.stringify(this.hits)}; stderr: ${JSON.stringify(this.errors.slice(-2000))}`;
  }

  /**
   * Resolves once every connection and datagram sent before it has been counted: the sentinel
   * connects last, and the listener takes what is waiting on every socket before it answers.
   */
  async settled(): Promise<void> {
    const before = this.hits.filter((h) => h === 'sentinel').length;
    await new Promise<void>((resolve, reject) => {
      const connection = net.connect({ path: this.sentinel.address }, () => (connection.destroy(), resolve()));
      connection.on('error', (error) => reject(new Error(`the sentinel: ${error.message}; ${this.state()}`)));
    });
    // Generous: this only waits on the listener, and a loaded CI machine once needed more than 10 s.
    await waitFor(() => this.hits.filter((h) => h === 'sentinel').length > before, 'the sentinel', 30_000).catch((error: Error) => {
      throw new Error(`${error.message}; ${this.state()}`);
    });
  }

  /** What reached the targets (the sentinel aside) since the last call; clears the record. */
  async take(): Promise<string[]> {
    await this.settled();
    return this.hits.splice(0).filter((h) => h !== 'sentinel');
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGKILL');
      await exited;
    }
    await Promise.all(this.targets.filter((t) => !t.address.startsWith('@')).map((t) => fs.rm(t.address, { force: true })));
    await fs.rm(this.sentinel.address, { force: true });
  }
}
