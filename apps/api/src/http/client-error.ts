import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { JSON_CONTENT_TYPE } from './json-response';
import { newRequestId } from './request-id';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** Writes a complete JSON error answer on a raw socket and closes it once the client is done. */
function answer(socket: Duplex, status: number, body: { error: string; code: string }): void {
  const text = JSON.stringify(body);
  socket.end(
    [
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
      `Content-Type: ${JSON_CONTENT_TYPE}`,
      `Content-Length: ${Buffer.byteLength(text)}`,
      `X-Request-Id: ${newRequestId()}`,
      'Connection: close',
      '',
      text,
    ].join('\r\n'),
  );
  // Reads and drops what the client is still sending: closing a socket with unread input resets
  // the connection, and the client could lose the answer. A client that never stops is cut off.
  socket.resume();
  setTimeout(() => socket.destroy(), 5000).unref();
}

/**
 * Requests that Node's HTTP layer answers before Express sees them (an unknown method, headers
 * over the size limit, broken syntax, a header timeout, an `Expect` other than `100-continue`) and
 * `CONNECT` requests get the JSON error envelope like every other answer, instead of a bare status
 * line or a dropped connection.
 */
export function answerProtocolErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be said on a closed socket or once the app's answer has started (a broken body
    // is found after the request was handed to the app, which may not have answered yet).
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      answer(socket, 431, {
        error: 'request line and headers are larger than the server accepts',
        code: 'headers_too_large',
      });
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer(socket, 408, {
        error: 'the request took too long to arrive',
        code: 'request_timeout',
      });
    } else {
      answer(socket, 400, {
        error: 'the request is not valid HTTP/1.1',
        code: 'malformed_request',
      });
    }
  });
  server.on('checkExpectation', (_req, res) => {
    const text = JSON.stringify({
      error: 'the Expect header can only be 100-continue',
      code: 'expectation_failed',
    });
    res
      .writeHead(417, {
        'Content-Type': JSON_CONTENT_TYPE,
        'Content-Length': Buffer.byteLength(text),
        'X-Request-Id': newRequestId(),
        Connection: 'close',
      })
      .end(text);
  });
  server.on('connect', (req: { url?: string }, socket: Duplex) => {
    answer(socket, 404, {
      error: `route not found: CONNECT ${(req.url ?? '').split('?')[0]}`,
      code: 'route_not_found',
    });
  });
}
