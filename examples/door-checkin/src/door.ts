import { createHash } from 'node:crypto';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  UnprocessableEntityError,
  type Boxoffice,
  type Ticket,
} from '@boxoffice/sdk';
import type { DoorOptions } from './args';

export type OutcomeKind =
  | 'admitted'
  | 'exited'
  | 'already_in'
  | 'not_inside'
  | 'void'
  | 'wrong_event'
  | 'unknown'
  | 'error';

export interface ScanResult {
  /** The line of the input the code was read from (1-based). */
  line: number;
  code: string;
  kind: OutcomeKind;
  /** The attendee's name, when it could be looked up. */
  name?: string | undefined;
  /** For `already_in`: when the ticket was admitted. */
  since?: string | undefined;
  /** The server answered from an earlier request with the same idempotency key. */
  replayed?: boolean;
  /** For `error`: what went wrong. */
  detail?: string;
}

/**
 * A failure that is not about one ticket (bad key, free plan, missing scope, unknown event): every
 * following scan would fail the same way, so the run stops.
 */
export class DoorStopped extends Error {
  override name = 'DoorStopped';
  constructor(
    readonly line: number | undefined,
    readonly error: APIError,
  ) {
    super(describeError(error));
  }
}

/**
 * The idempotency key of one scan. It is derived from the scan itself (device, batch, line, code
 * and what the door asks), so a rerun of the same batch after a crash sends the same key: the
 * server replays the first answer instead of admitting twice or reporting "already in" to a
 * guest whose first scan went through but whose answer was lost.
 */
export function scanIdempotencyKey(options: DoorOptions, line: number, code: string): string {
  const scan = [
    options.deviceId,
    options.batch,
    line,
    code,
    options.eventId,
    options.gate,
    options.direction,
  ];
  return `door_${createHash('sha256').update(JSON.stringify(scan)).digest('base64url')}`;
}

export function describeError(error: APIError): string {
  const request = error.requestId ? ` (request ${error.requestId})` : '';
  if (error instanceof RateLimitError) {
    const wait = error.retryAfter === undefined ? '' : `, retry after ${error.retryAfter} s`;
    return `rate limited${wait}${request}`;
  }
  if (error instanceof APIConnectionError) {
    // fetch wraps the socket's error ("connect ECONNREFUSED …") in a bare "fetch failed".
    const cause = error.cause instanceof Error ? error.cause : undefined;
    const root = cause?.cause instanceof Error ? cause.cause : cause;
    return `network: ${root?.message ?? error.message}`;
  }
  return `${error.message}${request}`;
}

/** The time in "ticket already checked in at <time>", when the ticket itself cannot be read. */
function sinceFromMessage(message: string | undefined): string | undefined {
  return message?.match(/checked in at (\S+)/)?.[1];
}

export class Door {
  private lookups: boolean;

  constructor(
    private readonly client: Boxoffice,
    private readonly options: DoorOptions,
    private readonly warn: (message: string) => void,
  ) {
    this.lookups = options.lookupNames;
  }

  /** Checks one scanned code in (or out) and says what the door should do. */
  async scan(line: number, code: string): Promise<ScanResult> {
    const { options } = this;
    try {
      const { data: checkin, response } = await this.client.checkins
        .create(
          {
            code,
            event_id: options.eventId,
            gate: options.gate,
            device_id: options.deviceId,
            direction: options.direction,
          },
          { idempotencyKey: scanIdempotencyKey(options, line, code) },
        )
        .withResponse();
      return {
        line,
        code,
        kind: options.direction === 'entry' ? 'admitted' : 'exited',
        name: await this.attendeeName(checkin.attendee_id),
        replayed: response.headers.get('idempotent-replayed') === 'true',
      };
    } catch (error) {
      return this.refused(line, code, error);
    }
  }

  private async refused(line: number, code: string, error: unknown): Promise<ScanResult> {
    if (!(error instanceof APIError)) throw error;
    if (
      error instanceof AuthenticationError ||
      error instanceof PlanRequiredError ||
      error instanceof PermissionDeniedError
    ) {
      throw new DoorStopped(line, error);
    }
    if (error instanceof NotFoundError) return { line, code, kind: 'unknown' };
    if (error instanceof ConflictError) {
      switch (error.code) {
        case 'already_checked_in': {
          const ticket = await this.ticketByCode(code);
          return {
            line,
            code,
            kind: 'already_in',
            since: ticket?.checked_in_at ?? sinceFromMessage(error.error),
            name: ticket && (await this.attendeeName(ticket.attendee_id)),
          };
        }
        case 'ticket_void':
        case 'not_checked_in': {
          const ticket = await this.ticketByCode(code);
          return {
            line,
            code,
            kind: error.code === 'ticket_void' ? 'void' : 'not_inside',
            name: ticket && (await this.attendeeName(ticket.attendee_id)),
          };
        }
      }
    }
    if (error instanceof UnprocessableEntityError) {
      if (error.code === 'wrong_event') {
        const ticket = await this.ticketByCode(code);
        return {
          line,
          code,
          kind: 'wrong_event',
          name: ticket && (await this.attendeeName(ticket.attendee_id)),
        };
      }
      // The door's event itself is gone: no scan can succeed.
      if (error.code === 'unknown_event') throw new DoorStopped(line, error);
    }
    // Network failures, 429s and 5xx left after the SDK's retries, or anything unexpected: this
    // scan failed, the next may not. Rerunning the batch is safe (same idempotency keys).
    return { line, code, kind: 'error', detail: describeError(error) };
  }

  private async ticketByCode(code: string): Promise<Ticket | undefined> {
    return this.lookup(async () => (await this.client.tickets.list({ code, limit: 1 })).data[0]);
  }

  private async attendeeName(attendeeId: string): Promise<string | undefined> {
    return this.lookup(async () => {
      const attendee = await this.client.attendees.get(attendeeId);
      const name = `${attendee.first_name} ${attendee.last_name}`.trim();
      return attendee.company ? `${name} (${attendee.company})` : name;
    });
  }

  /** Names are a courtesy: a failed lookup never fails the scan it belongs to. */
  private async lookup<T>(read: () => Promise<T>): Promise<T | undefined> {
    if (!this.lookups) return undefined;
    try {
      return await read();
    } catch (error) {
      if (error instanceof PermissionDeniedError) {
        this.lookups = false;
        this.warn('this API key has no read scope: attendee names are not shown');
      }
      return undefined;
    }
  }
}
