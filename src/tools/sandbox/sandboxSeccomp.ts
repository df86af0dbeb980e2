/**
 * The system-call filter every sandboxed process runs under, as the classic-BPF program bwrap's
 * `--seccomp FD` loads: `struct sock_filter` entries of 8 bytes (u16 code, u8 jt, u8 jf, u32 k)
 * in the machine's byte order (little-endian on both architectures supported).
 *
 * What it decides, on `struct seccomp_data` (nr at 0, arch at 4, args[i] at 16 + 8i):
 * - another architecture's calls (i386 through `int 0x80`, AArch32) and x86_64's x32 calls kill
 *   the process: their numbers mean other calls (i386 reaches sockets through `socketcall`);
 * - `socket()` opens only IPv4, IPv6 and netlink sockets (netlink: getaddrinfo, getifaddrs);
 *   AF_UNIX — a path or abstract socket of the host: D-Bus, ssh and gpg agents, docker, X11 —
 *   and every other family (vsock reaches the hypervisor, bluetooth the host's radios whatever
 *   the network namespace) fail with EPERM;
 * - `socketpair()` gives AF_UNIX stream and seqpacket pairs only (pipes between processes, which
 *   Node, Python and libuv use): a datagram one can `sendto()` or `connect()` any datagram socket
 *   by address (journald, systemd's notify socket), so it fails with EPERM;
 * - io_uring fails with EPERM: its IORING_OP_SOCKET opens a socket without `socket()`.
 * Only the domain's and type's low 32 bits count, as for the kernel, which takes them as `int`.
 */

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
const SOCK_TYPE_MASK = 0xf;
const X32_SYSCALL_BIT = 0x40000000;

const NR = 0;
const ARCH = 4;
const arg = (index: number) => 16 + 8 * index;

interface Architecture {
  audit: number;
  /** x86_64 also runs x32 calls: the same arch value, numbers with bit 30 set. */
  x32: boolean;
  socket: number;
  socketpair: number;
  ioUring: readonly number[];
}

/** By Node's `process.arch`. */
const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  x64: { audit: 0xc000003e, x32: true, socket: 41, socketpair: 53, ioUring: [425, 426, 427] },
  arm64: { audit: 0xc00000b7, x32: false, socket: 198, socketpair: 199, ioUring: [425, 426, 427] },
};

export const SECCOMP_ARCHITECTURES: readonly string[] = Object.freeze(Object.keys(ARCHITECTURES));

// BPF opcodes: BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_JMP|BPF_JSET|BPF_K, BPF_ALU|BPF_AND|BPF_K, BPF_RET|BPF_K.
const LD_ABS = 0x20;
const JEQ = 0x15;
const JSET = 0x45;
const AND = 0x54;
const RET = 0x06;

/** A jump target: a label, or `next` (the following instruction). */
type Target = string;
type Step = { label?: string; code: number; k: number; jt?: Target; jf?: Target };

/** The filter for `arch` (`process.arch` by default); undefined for an architecture it does not know. */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  const a = Object.hasOwn(ARCHITECTURES, arch) ? ARCHITECTURES[arch] : undefined;
  if (!a) return undefined;
  const steps: Step[] = [
    { code: LD_ABS, k: ARCH },
    { code: JEQ, k: a.audit, jt: 'next', jf: 'kill' },
    { code: LD_ABS, k: NR },
    ...(a.x32 ? [{ code: JSET, k: X32_SYSCALL_BIT, jt: 'kill', jf: 'next' }] : []),
    { code: JEQ, k: a.socket, jt: 'socket', jf: 'next' },
    { code: JEQ, k: a.socketpair, jt: 'socketpair', jf: 'next' },
    ...a.ioUring.map((nr) => ({ code: JEQ, k: nr, jt: 'deny', jf: 'next' })),
    { code: RET, k: SECCOMP_RET_ALLOW },
    { label: 'socket', code: LD_ABS, k: arg(0) },
    { code: JEQ, k: AF_INET, jt: 'allow', jf: 'next' },
    { code: JEQ, k: AF_INET6, jt: 'allow', jf: 'next' },
    { code: JEQ, k: AF_NETLINK, jt: 'allow', jf: 'deny' },
    { label: 'socketpair', code: LD_ABS, k: arg(0) },
    { code: JEQ, k: AF_UNIX, jt: 'next', jf: 'deny' },
    { code: LD_ABS, k: arg(1) },
    { code: AND, k: SOCK_TYPE_MASK },
    { code: JEQ, k: SOCK_STREAM, jt: 'allow', jf: 'next' },
    { code: JEQ, k: SOCK_SEQPACKET, jt: 'allow', jf: 'deny' },
    { label: 'allow', code: RET, k: SECCOMP_RET_ALLOW },
    { label: 'deny', code: RET, k: SECCOMP_RET_ERRNO | EPERM },
    { label: 'kill', code: RET, k: SECCOMP_RET_KILL_PROCESS },
  ];
  return assemble(steps);
}

function assemble(steps: readonly Step[]): Buffer {
  const at = new Map(steps.flatMap((step, i) => (step.label ? [[step.label, i] as const] : [])));
  const offset = (from: number, target: Target | undefined): number => {
    if (target === undefined || target === 'next') return 0;
    const to = at.get(target);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp: bad jump to ${target}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(steps.length * 8);
  steps.forEach((step, i) => {
    out.writeUInt16LE(step.code, i * 8);
    out.writeUInt8(offset(i, step.jt), i * 8 + 2);
    out.writeUInt8(offset(i, step.jf), i * 8 + 3);
    out.writeUInt32LE(step.k >>> 0, i * 8 + 4);
  });
  return out;
}
