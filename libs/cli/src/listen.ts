/** "host:port", ":port" or "port" → where to listen. An empty host means every interface. */
export function parseListen(s: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d+)$/.exec(s.trim());
  if (!m) throw new Error(`"${s}" is not host:port, :port or port`);
  const port = Number(m[2]);
  if (port > 65535) throw new Error(`"${s}": port ${port} is out of range`);
  const host = m[1] === undefined || m[1] === '' ? '0.0.0.0' : m[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** A host a client on this machine can dial for a listener bound to `host` (wildcards → loopback, IPv6 bracketed). */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Applies `--host` / `--port` style flags over a configured listen address:
 * each flag replaces only its own half. Returns "host:port".
 */
export function overrideListen(configured: string | undefined, fallback: string, host?: string, port?: string | number): string {
  const cur = parseListen(configured ?? fallback);
  return `${host ?? cur.host}:${port ?? cur.port}`;
}
