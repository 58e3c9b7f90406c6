import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are over one TCP connection and reads one HTTP/1.1
 * response (by content-length, else until the server closes). For requests
 * a regular client refuses to send: broken request lines, bad framing, huge
 * headers.
 */
export function rawRequest(url: string, bytes: string | Buffer | Array<string | Buffer>, timeoutMs = 15_000): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const so = net.connect(Number(port), hostname);
    const parts: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    const finish = (err?: Error) => {
      if (settled) return;
      const r = parse(Buffer.concat(parts));
      if (!err && !r) return;
      settled = true;
      clearTimeout(timer);
      so.destroy();
      if (r) resolve(r);
      else reject(err);
    };
    so.on('data', (c) => {
      parts.push(c);
      const r = parse(Buffer.concat(parts));
      if (r && r.complete) finish();
    });
    so.on('error', (e) => finish(e));
    so.on('close', () => finish(new Error(`connection closed without a response: ${JSON.stringify(Buffer.concat(parts).toString().slice(0, 200))}`)));
    so.on('connect', () => {
      // Writes may fail once the server has answered and closed; the answer is what counts.
      for (const b of Array.isArray(bytes) ? bytes : [bytes]) if (so.writable) so.write(b, () => undefined);
    });
  });
}

function parse(buf: Buffer): (RawResponse & { complete: boolean }) | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = buf.subarray(end + 4);
  const len = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
  const complete = len !== undefined && body.length >= len;
  return { status, headers, body: body.subarray(0, len ?? body.length).toString('utf8'), complete };
}

/** An HTTP/1.1 request as bytes, with `connection: close` and a correct content-length unless given. */
export function httpBytes(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): string | Buffer {
  const h: Record<string, string> = { host: 'localhost', connection: 'close', ...headers };
  if (body !== undefined && h['content-length'] === undefined && h['transfer-encoding'] === undefined) h['content-length'] = String(Buffer.byteLength(body));
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  if (body === undefined) return head;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}
