import * as assert from 'node:assert/strict';
import { mcpServerSet, needsApproval } from '../../src/tools/mcp';

const stdio = (command: string) => ({ command, args: [] });
const mcpJson = (servers: Record<string, unknown>) => JSON.stringify({ servers });

/** Which servers exist: one reading for the extension and the CLI (each supplies only the files' text). */
describe('mcpServerSet: which MCP servers exist', () => {
  it("takes the person's own first, then Toolbelt's governed file, then mcp.json; a later name is left out, saying where it was first", () => {
    const { servers, problems } = mcpServerSet({ shared: stdio('mine') }, [
      { root: '/w', governed: mcpJson({ shared: stdio('governed'), moved: stdio('governed-copy') }), mcpJson: mcpJson({ moved: stdio('left-behind'), plain: stdio('vscode') }) },
    ]);
    assert.deepEqual(
      [...servers.values()].map((d) => [d.server.name, d.server.origin, d.server.type === 'stdio' ? d.server.command : '']),
      [
        ['shared', 'user settings', 'mine'],
        ['moved', '.vscode/toolbelt.mcp.json', 'governed-copy'],
        ['plain', '.vscode/mcp.json', 'vscode'],
      ],
    );
    assert.deepEqual(problems, [
      'MCP server "shared" (.vscode/toolbelt.mcp.json): a server of that name is defined in user settings already; this one is left out.',
      'MCP server "moved" (.vscode/mcp.json): a server of that name is defined in .vscode/toolbelt.mcp.json already; this one is left out.',
    ]);
  });

  it('names each folder in the origin when there are several, and gives each server its own folder', () => {
    const { servers } = mcpServerSet(undefined, [
      { root: '/a', name: 'api', mcpJson: mcpJson({ one: stdio('x') }) },
      { root: '/b', name: 'web', mcpJson: mcpJson({ two: stdio('y') }) },
    ]);
    assert.deepEqual([...servers.values()].map((d) => [d.server.origin, d.workspaceFolder]), [['api/.vscode/mcp.json', '/a'], ['web/.vscode/mcp.json', '/b']]);
  });

  it('refuses a name the caller keeps, and says what is wrong with a file', () => {
    const { problems } = mcpServerSet(undefined, [{ root: '/w', mcpJson: mcpJson({ one: stdio('x') }).slice(0, -1) }]);
    assert.deepEqual(problems, ['.vscode/mcp.json: CloseBraceExpected at line 1, column 45.'], 'a file that is not whole JSON is a problem');
    const reserved = mcpServerSet(undefined, [{ root: '/w', mcpJson: mcpJson({ extensions: stdio('x') }) }], [{ name: 'extensions', why: "the name of other extensions' tools" }]);
    assert.equal(reserved.servers.size, 0);
    assert.deepEqual(reserved.problems, ['MCP server "extensions" (.vscode/mcp.json): "extensions" is the name of other extensions\' tools; rename the server.']);
  });

  it("changes a server's fingerprint when what would start it changes, not otherwise", () => {
    const once = mcpServerSet(undefined, [{ root: '/w', mcpJson: mcpJson({ s: stdio('a') }) }]).servers.get('s')!.fingerprint;
    assert.equal(mcpServerSet(undefined, [{ root: '/w', mcpJson: mcpJson({ s: stdio('a') }) }]).servers.get('s')!.fingerprint, once);
    assert.notEqual(mcpServerSet(undefined, [{ root: '/w', mcpJson: mcpJson({ s: stdio('b') }) }]).servers.get('s')!.fingerprint, once);
    assert.notEqual(mcpServerSet(undefined, [{ root: '/other', mcpJson: mcpJson({ s: stdio('a') }) }]).servers.get('s')!.fingerprint, once);
  });

  it("asks approval for every server but the person's own", () => {
    const { servers } = mcpServerSet({ mine: stdio('m') }, [{ root: '/w', governed: mcpJson({ g: stdio('g') }), mcpJson: mcpJson({ w: stdio('w') }) }]);
    assert.deepEqual([...servers.values()].map((d) => [d.server.name, needsApproval(d.server)]), [['mine', false], ['g', true], ['w', true]]);
  });
});
