import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runtimeDirs } from '../../src/tools/sandbox/sandboxRuntimeDirs';
import { seccompProgram } from '../../src/tools/sandbox/sandboxSeccomp';

// The kernel's values, written out here on their own (not taken from the code under test).
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL_PROCESS = 0x80000000;
const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16, PACKET: 17, VSOCK: 40, BLUETOOTH: 31 };
const SOCK = { STREAM: 1, DGRAM: 2, SEQPACKET: 5, NONBLOCK: 0o4000, CLOEXEC: 0o2000000 };
const NR = {
  x64: { socket: 41, socketpair: 53, connect: 42, read: 0, ioUringSetup: 425, ioUringEnter: 426, ioUringRegister: 427 },
  arm64: { socket: 198, socketpair: 199, connect: 203, read: 63, ioUringSetup: 425, ioUringEnter: 426, ioUringRegister: 427 },
};

interface Call {
  arch: number;
  nr: number;
  /** Each argument as its low and high 32 bits. */
  args?: [number, number][];
}

/**
 * Runs a classic-BPF seccomp program on one call, as the kernel would: the instructions the
 * program may use (load word, jeq/jset/jge with a constant, and, ret), anything else an error.
 */
function decide(program: Buffer, call: Call): number {
  assert.equal(program.length % 8, 0, 'whole sock_filter entries');
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  (call.args ?? []).forEach(([low, high], i) => (data.writeUInt32LE(low >>> 0, 16 + 8 * i), data.writeUInt32LE(high >>> 0, 20 + 8 * i)));
  let a = 0;
  for (let pc = 0, steps = 0; pc < program.length / 8; pc++, steps++) {
    assert.ok(steps < 4096, 'the program ends');
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    const jump = (taken: boolean) => (pc += taken ? jt : jf);
    switch (code) {
      case 0x20: // ld [k]
        assert.ok(k % 4 === 0 && k + 4 <= 64, `load at ${k}`);
        a = data.readUInt32LE(k);
        break;
      case 0x15: // jeq #k
        jump(a === k);
        break;
      case 0x35: // jge #k
        jump(a >= k);
        break;
      case 0x45: // jset #k
        jump((a & k) >>> 0 !== 0);
        break;
      case 0x54: // and #k
        a = (a & k) >>> 0;
        break;
      case 0x06: // ret #k
        return k;
      default:
        assert.fail(`unknown instruction ${code.toString(16)} at ${pc}`);
    }
  }
  return assert.fail('the program ran off its end');
}

describe('the sandbox system-call filter', () => {
  for (const [arch, audit] of [['x64', X86_64], ['arm64', AARCH64]] as const) {
    describe(arch, () => {
      const program = seccompProgram(arch)!;
      const nr = NR[arch];
      const socket = (domain: number, type = SOCK.STREAM, high = 0) => decide(program, { arch: audit, nr: nr.socket, args: [[domain, high], [type, 0]] });
      const socketpair = (domain: number, type: number) => decide(program, { arch: audit, nr: nr.socketpair, args: [[domain, 0], [type, 0]] });

      it('refuses AF_UNIX sockets with EPERM, whatever the type and flags, and whatever the high bits say', () => {
        for (const type of [SOCK.STREAM, SOCK.DGRAM, SOCK.SEQPACKET, SOCK.STREAM | SOCK.CLOEXEC | SOCK.NONBLOCK]) assert.equal(socket(AF.UNIX, type), EPERM);
        assert.equal(socket(AF.UNIX, SOCK.STREAM, 0xffffffff), EPERM, 'the kernel reads the domain as an int: high bits do not make it another family');
        assert.equal(socket(AF.INET, SOCK.STREAM, 0x1), ALLOW);
      });

      it('opens IPv4, IPv6 and netlink sockets, and refuses every other family', () => {
        for (const domain of [AF.INET, AF.INET6, AF.NETLINK]) assert.equal(socket(domain), ALLOW, `family ${domain}`);
        for (const domain of [AF.VSOCK, AF.BLUETOOTH, AF.PACKET, 0, 45, 0xffff]) assert.equal(socket(domain), EPERM, `family ${domain}`);
      });

      it('gives stream and seqpacket socketpairs, refuses datagram ones (they send to any address) and other families', () => {
        assert.equal(socketpair(AF.UNIX, SOCK.STREAM), ALLOW);
        assert.equal(socketpair(AF.UNIX, SOCK.STREAM | SOCK.CLOEXEC | SOCK.NONBLOCK), ALLOW);
        assert.equal(socketpair(AF.UNIX, SOCK.SEQPACKET | SOCK.CLOEXEC), ALLOW);
        assert.equal(socketpair(AF.UNIX, SOCK.DGRAM), EPERM);
        assert.equal(socketpair(AF.UNIX, SOCK.DGRAM | SOCK.CLOEXEC), EPERM);
        assert.equal(socketpair(AF.INET, SOCK.STREAM), EPERM);
      });

      it('refuses io_uring, which opens sockets without socket()', () => {
        for (const call of [nr.ioUringSetup, nr.ioUringEnter, nr.ioUringRegister]) assert.equal(decide(program, { arch: audit, nr: call }), EPERM);
      });

      it('lets every other call through, connect() included (a socket it may open may connect)', () => {
        for (const call of [nr.read, nr.connect, 1, 59, 231, 424, 428]) assert.equal(decide(program, { arch: audit, nr: call }), ALLOW, `call ${call}`);
      });

      it("kills a process making another architecture's calls (i386's socketcall through int 0x80)", () => {
        for (const other of [I386, arch === 'x64' ? AARCH64 : X86_64, 0]) assert.equal(decide(program, { arch: other, nr: 102, args: [[1, 0], [0, 0]] }), KILL_PROCESS);
      });
    });
  }

  it("kills a process making x86_64's x32 calls (numbers with bit 30 set), which the filter cannot read", () => {
    const program = seccompProgram('x64')!;
    for (const call of [0x40000000 | 41, 0x40000000, 0xffffffff]) assert.equal(decide(program, { arch: X86_64, nr: call | 0, args: [[AF.UNIX, 0]] }), KILL_PROCESS);
    assert.equal(decide(seccompProgram('arm64')!, { arch: AARCH64, nr: 0x40000000 | 198, args: [[AF.INET, 0]] }), ALLOW, 'aarch64 has no x32');
  });

  it('has no program for an architecture it does not know: the sandbox is then unavailable', () => {
    for (const arch of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'toString', '__proto__']) assert.equal(seccompProgram(arch), undefined, arch);
  });
});

describe("the host's runtime folders in the sandbox", () => {
  // Under /var/tmp: a runtime folder under /tmp is left alone for that reason alone.
  let base: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp('/var/tmp/toolbelt-runtime-'));
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('masks /run and $XDG_RUNTIME_DIR elsewhere, and keeps the PATH entries inside them, never a masked folder whole', async () => {
    await fs.mkdir(path.join(base, 'fnm/bin'), { recursive: true });
    const dirs = await runtimeDirs([base, undefined, 'relative/dir'], [`${base}/fnm/bin`, '/usr/bin', '/run', base, 'bin'].join(':'), '/home/u', ['/ws']);
    assert.ok(dirs.masked.includes('/run'));
    assert.ok(dirs.masked.includes(base), `${dirs.masked}`);
    assert.deepEqual(dirs.kept.filter((p) => p.startsWith(base)), [`${base}/fnm/bin`]);
    assert.ok(!dirs.kept.includes('/run') && !dirs.kept.includes(base), 'a PATH entry naming a masked folder does not bring it back');
    assert.ok(!dirs.kept.includes('/usr/bin'));
  });

  it('leaves $XDG_RUNTIME_DIR alone under /tmp (private already), around the home or a workspace folder, or inside a workspace folder', async () => {
    const home = path.join(base, 'home');
    const ws = path.join(base, 'ws');
    for (const dir of [home, ws, path.join(ws, 'run')]) await fs.mkdir(dir, { recursive: true });
    const around = await runtimeDirs([base], undefined, home, [ws]);
    const inside = await runtimeDirs([path.join(ws, 'run')], undefined, '/home/u', [ws]);
    const tmp = await runtimeDirs(['/tmp'], undefined, '/home/u', ['/ws']);
    for (const dirs of [around, inside, tmp]) assert.deepEqual(dirs.masked.filter((d) => d !== '/run' && d !== '/var/run'), []);
  });
});
