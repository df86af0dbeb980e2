/**
 * The variables a sandboxed command inherits from Toolbelt's own environment, besides `LC_*`: the
 * basics, and where the certificate authorities are (a corporate network's own CA: without it
 * every HTTPS request through the allow-list fails). They name files, never secrets.
 */
export const ALLOWED_ENV_NAMES: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'LANG',
  'TERM',
  'USER',
  'SHELL',
  'TMPDIR',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
]);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The entries of `toolbelt.sandbox.env` that are variable names, and what is wrong with the others. */
export function checkEnvNames(entries: unknown): { names: string[]; problems: string[] } {
  if (entries == null) return { names: [], problems: [] };
  if (!Array.isArray(entries)) return { names: [], problems: ['toolbelt.sandbox.env must be a list of variable names; it was ignored.'] };
  const names: string[] = [];
  const problems: string[] = [];
  entries.forEach((entry: unknown, index) => {
    if (typeof entry === 'string' && NAME.test(entry.trim())) names.push(entry.trim());
    else problems.push(`toolbelt.sandbox.env[${index}] is not a variable name; it was ignored.`);
  });
  return { names, problems };
}

/**
 * The whole environment of a sandboxed process: the allow-listed names (and `extraNames`) taken
 * from `source`, then `fixed` on top. Nothing else gets through: the process that starts the
 * sandbox gets this same environment, so not even `/proc/1/environ` inside shows more.
 */
export function sandboxEnvironment(source: Readonly<Record<string, string | undefined>>, extraNames: readonly string[], fixed: Readonly<Record<string, string>>): Record<string, string> {
  const wanted = new Set([...ALLOWED_ENV_NAMES, ...extraNames]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (wanted.has(name) || name.startsWith('LC_'))) env[name] = value;
  }
  return { ...env, ...fixed };
}
