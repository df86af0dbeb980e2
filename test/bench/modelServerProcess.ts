import { ModelServer } from '../support/modelServer';

/**
 * The scripted model server in a process of its own, for the bench: the client's CPU time then
 * measures the client alone. Answers `rounds` tool calls of `noop`, then text; prints its URL.
 */
async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 60);
  const server = await ModelServer.start();
  server.setFallback((request) => {
    const done = (request.body.messages as { role: string }[]).filter((m) => m.role === 'tool').length;
    return done < rounds ? { toolCalls: [{ name: 'noop', arguments: { value: `round ${done}` } }] } : { text: 'All rounds done.' };
  });
  process.stdout.write(`${server.openaiBaseUrl}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

void main();
