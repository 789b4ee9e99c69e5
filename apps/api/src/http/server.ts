import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { limitKeyOfAddress } from './client-address';
import { createServer } from './node-http';

export interface HttpServerOptions {
  /** Open connections past which new ones are closed at once (file descriptors are finite). */
  maxConnections: number;
  /**
   * Open connections one client address may hold (an IPv6 address counts as its /64), past which
   * its new ones are closed at once: one client cannot take every connection.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Peers whose connections no per-address share limits: trusted proxies, whose connections carry
   * many clients' requests.
   */
  isTrustedProxy?: (address: string) => boolean;
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
   * Stops accepting connections and lets the open ones finish: requests already received are
   * answered, and each connection's last answer carries `Connection: close` and closes it once
   * sent. A connection that owes no answer (also one whose last answer went out before the drain,
   * kept alive) is closed once it has received nothing for `idleLingerMs`, in case its next request
   * is already on its way; such a request is answered as above. Resolves true once every
   * connection has closed, or false if some are still open after `timeoutMs`.
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
const DEFAULT_IDLE_LINGER_MS = 1000;
/** How long a connection closed after an early answer may go on sending what it had started. */
const CLOSING_READ_MS = 5000;

/**
 * Closes a connection after its answer (FIN), reading and dropping what the client still sends
 * meanwhile: closing a socket with unread input resets the connection, and the client could lose
 * the answer. A client that never stops is cut off.
 */
function closeAfterAnswer(socket: Socket): void {
  if (socket.writableEnded) return;
  socket.end();
  setTimeout(() => socket.destroy(), CLOSING_READ_MS).unref();
}

/**
 * The API's HTTP server: `handler` behind the connection cap, the header and request timeouts, a
 * bound on pipelined requests per connection, and a shutdown that drains keep-alive connections.
 */
export function createHttpServer(handler: RequestListener, options: HttpServerOptions): HttpServer {
  const maxPipelined = options.maxPipelinedRequests ?? DEFAULT_MAX_PIPELINED_REQUESTS;
  const connections = new Set<Socket>();
  /** Set by `drain`; `draining` once the listener has stopped. */
  let stopping = false;
  let draining = false;
  /** Sockets drained while idle; closed unless a request arrives first. */
  const lingering = new Map<Socket, NodeJS.Timeout>();
  let lingerMs = DEFAULT_IDLE_LINGER_MS;

  const stopLingering = (socket: Socket): void => {
    const timer = lingering.get(socket);
    if (timer) clearTimeout(timer);
    lingering.delete(socket);
  };

  /**
   * Closes `socket`, which owes no answer, once it has received nothing for `lingerMs`: a request
   * that has begun to arrive keeps it open (the header and request timeouts bound a stalled one),
   * and one that arrives in full is answered, with `Connection: close`.
   */
  function linger(socket: Socket): void {
    if (socket.destroyed || lingering.has(socket)) return;
    const bytesRead = socket.bytesRead;
    const timer = setTimeout(() => {
      lingering.delete(socket);
      if (owedOn(socket).size > 0) return;
      if (socket.bytesRead === bytesRead) socket.destroy();
      else linger(socket);
    }, lingerMs);
    timer.unref();
    lingering.set(socket, timer);
  }

  /**
   * Marks the answer to the latest request received on a connection, if not yet written, to close
   * it (`Connection: close`); answers to earlier, pipelined requests keep it open for that one.
   */
  function closeAfterLast(pending: Set<ServerResponse>): void {
    let last: ServerResponse | undefined;
    for (const res of pending) {
      if (last && !last.headersSent) last.removeHeader('Connection');
      last = res;
    }
    if (last && !last.headersSent) last.setHeader('Connection', 'close');
  }

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
      stopLingering(socket);
      res.once('close', () => {
        pending.delete(res);
        // Answered before the request had fully arrived (at the request deadline, or refused before
        // its body was read): that answer is the only one. The rest of the body is dropped and the
        // connection closes, rather than the body's timeout answering a second time.
        if (!req.complete) {
          if (!socket.destroyed) closeAfterAnswer(socket);
          return;
        }
        // An answer already under way when the drain began went out without `Connection: close`:
        // its client may have sent its next request on this connection already. That one is
        // answered (with `Connection: close`) like any other; the connection closes once idle.
        if (draining && pending.size === 0) linger(socket);
      });
      if (draining) closeAfterLast(pending);
      handler(req, res);
    },
  );
  server.maxConnections = options.maxConnections;
  const perAddress = options.maxConnectionsPerAddress ?? options.maxConnections;
  const isTrustedProxy = options.isTrustedProxy ?? (() => false);
  /** Open connections per client address (only where a share applies). */
  const byAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    const address =
      perAddress < options.maxConnections && peer !== undefined && !isTrustedProxy(peer)
        ? limitKeyOfAddress(peer)
        : undefined;
    if (address !== undefined) {
      const open = byAddress.get(address) ?? 0;
      if (open >= perAddress) {
        // As past the connection cap: closed at once, before anything is read from it.
        socket.destroy();
        return;
      }
      byAddress.set(address, open + 1);
    }
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      stopLingering(socket);
      if (address !== undefined) {
        const open = (byAddress.get(address) ?? 1) - 1;
        if (open > 0) byAddress.set(address, open);
        else byAddress.delete(address);
      }
    });
  });

  return {
    server,
    get draining() {
      return stopping;
    },
    drain(timeoutMs, idleLingerMs = DEFAULT_IDLE_LINGER_MS) {
      stopping = true;
      return new Promise<boolean>((resolve) => {
        const deadline = setTimeout(() => resolve(false), timeoutMs);
        deadline.unref();
        // After this turn of the event loop, so that connections it accepts are answered rather
        // than reset with the listening socket.
        setImmediate(() => {
          // `http.Server#close` would also destroy every connection without a request in
          // progress, including one accepted a moment ago whose request is still on the wire:
          // that client would see a reset. Stopping the listener alone leaves them to finish.
          // It stops before any answer says `Connection: close`: a client told so reconnects at
          // once, and its connection must be refused (a load balancer tries another replica),
          // not caught in the listening socket's queue as it closes, which resets it.
          NetServer.prototype.close.call(server, () => {
            clearTimeout(deadline);
            resolve(true);
          });
          draining = true;
          lingerMs = idleLingerMs;
          for (const socket of connections) {
            const pending = owedOn(socket);
            if (pending.size > 0) closeAfterLast(pending);
            else linger(socket);
          }
        });
      });
    },
  };
}
