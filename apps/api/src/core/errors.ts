/**
 * The one error family the server throws; the error middleware turns it into `{ error, code }`,
 * followed by `more` when a refusal says more than that (e.g. the `admission` of a ticket already
 * checked in).
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly more: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'invalid_request') =>
  new AppError(400, code, message);

export const notFound = (kind: string) => new AppError(404, 'not_found', `${kind} not found`);

export const conflict = (message: string, code = 'conflict') => new AppError(409, code, message);

export const unprocessable = (message: string, code = 'unprocessable') =>
  new AppError(422, code, message);

export const serviceUnavailable = (retryAfterSeconds = 5) =>
  new AppError(503, 'service_unavailable', 'Service temporarily unavailable', {
    'Retry-After': String(retryAfterSeconds),
  });
