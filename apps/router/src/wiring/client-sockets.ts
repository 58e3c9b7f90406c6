import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Requests running per client socket, so that shutdown can drop idle sockets
 * (keep-alive ones, and ones that never sent a request) at once and each busy
 * one as soon as its last response ends; whatever is still open after
 * `graceMs` is cut.
 */
export class ClientSockets {
  private readonly activeBySocket = new Map<Socket, number>();
  private shuttingDown = false;
  private grace?: NodeJS.Timeout;

  constructor(
    private readonly client: FastifyInstance,
    private readonly graceMs: number,
  ) {
    client.server.on('connection', (so: Socket) => {
      this.activeBySocket.set(so, 0);
      so.once('close', () => this.activeBySocket.delete(so));
    });
    client.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const so = req.socket;
      this.activeBySocket.set(so, (this.activeBySocket.get(so) ?? 0) + 1);
      res.once('close', () => {
        const n = (this.activeBySocket.get(so) ?? 1) - 1;
        if (this.activeBySocket.has(so)) this.activeBySocket.set(so, n);
        if (this.shuttingDown && n === 0) so.destroy();
      });
    });
  }

  /** Drops idle sockets now, busy ones when their last response ends, the rest after the grace. */
  stopAccepting(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const [so, n] of this.activeBySocket) if (n === 0) so.destroy();
    this.grace = setTimeout(() => this.client.server.closeAllConnections(), this.graceMs);
  }

  close(): void {
    clearTimeout(this.grace);
  }
}
