import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { createServer } from './node-http';

export interface HttpServerOptions {
  /** Open connections past which new ones are closed at once (file descriptors are finite). */
  maxConnections: number;
  /** A request's headers must arrive within this long of the connection or the previous request. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this long. */
  requestTimeoutMs: number;
  /**
   * Requests a connection may have received but not yet been answered. Node parses pipelined
   * requests as fast as they arrive and queues every answer in memory, however slowly the client
   * reads; past this many the connection is closed instead.
   */
  maxPipelinedRequests?: number;
  /** How often Node checks the two timeouts above (its default, 30 s, would let them overrun). */
  timeoutCheckIntervalMs?: number;
}

export interface HttpServer {
  readonly server: Server;
  /** True once `drain` has been called. */
  readonly draining: boolean;
  /**
   * Stops accepting connections and lets the open ones finish: every answer from now on carries
   * `Connection: close` and its connection closes once it has been sent; requests already received
   * are answered. Connections with no request in progress are closed after `idleLingerMs`, in case
   * their next request is already on its way. Resolves true once every connection has closed, or
   * false if some are still open after `timeoutMs`.
   */
  drain(timeoutMs: number, idleLingerMs?: number): Promise<boolean>;
}

/** The answers each connection still owes: requests received and not yet fully answered. */
const owed = new WeakMap<Socket, Set<ServerResponse>>();
const owedOn = (socket: Socket): Set<ServerResponse> => {
  let responses = owed.get(socket);
  if (!responses) {
    responses = new Set();
    owed.set(socket, responses);
  }
  return responses;
};

export const DEFAULT_MAX_PIPELINED_REQUESTS = 16;

/**
 * The API's HTTP server: `handler` behind the connection cap, the header and request timeouts, a
 * bound on pipelined requests per connection, and a shutdown that drains keep-alive connections.
 */
export function createHttpServer(handler: RequestListener, options: HttpServerOptions): HttpServer {
  const maxPipelined = options.maxPipelinedRequests ?? DEFAULT_MAX_PIPELINED_REQUESTS;
  const connections = new Set<Socket>();
  let draining = false;
  /** Sockets drained while idle; closed unless a request arrives first. */
  const lingering = new Map<Socket, NodeJS.Timeout>();

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1000,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (socket.destroyed) return;
      const pending = owedOn(socket);
      if (pending.size >= maxPipelined) {
        // The client sends faster than it reads: stop before its queued answers fill the memory.
        socket.destroy();
        return;
      }
      pending.add(res);
      const timer = lingering.get(socket);
      if (timer) {
        clearTimeout(timer);
        lingering.delete(socket);
      }
      res.once('close', () => {
        pending.delete(res);
        // An answer already under way when the drain began went out without `Connection: close`.
        if (draining && pending.size === 0 && !socket.destroyed) socket.end();
      });
      if (draining) res.setHeader('Connection', 'close');
      handler(req, res);
    },
  );
  server.maxConnections = options.maxConnections;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      const timer = lingering.get(socket);
      if (timer) clearTimeout(timer);
      lingering.delete(socket);
    });
  });

  return {
    server,
    get draining() {
      return draining;
    },
    drain(timeoutMs, idleLingerMs = 1000) {
      draining = true;
      return new Promise<boolean>((resolve) => {
        const deadline = setTimeout(() => resolve(false), timeoutMs);
        deadline.unref();
        // `http.Server#close` would also destroy every connection without a request in progress,
        // including one accepted a moment ago whose request is still on the wire: that client
        // would see a reset. Stopping the listener alone leaves those connections to finish.
        // It stops after this turn of the event loop, so connections the kernel has already
        // completed are accepted (and answered) rather than reset with the listening socket.
        setImmediate(() => {
          NetServer.prototype.close.call(server, () => {
            clearTimeout(deadline);
            resolve(true);
          });
          lingerIdle();
        });
      });

      function lingerIdle(): void {
        for (const socket of connections) {
          const pending = owedOn(socket);
          if (pending.size > 0) {
            // Requests received but not answered yet: their answers close the connection.
            for (const res of pending) if (!res.headersSent) res.setHeader('Connection', 'close');
            continue;
          }
          const timer = setTimeout(() => {
            lingering.delete(socket);
            if (owedOn(socket).size === 0) socket.destroy();
          }, idleLingerMs);
          timer.unref();
          lingering.set(socket, timer);
        }
      }
    },
  };
}
