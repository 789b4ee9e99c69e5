import type { Target } from './attempt';

/** The endpoint a message goes to, as the fan-out read it. */
export interface Endpoint extends Target {
  id: string;
  failing_since: Date | null;
}

/** A message the fan-out made from a change record, before it is written. */
export interface NewMessage {
  /** Derived from its change record and endpoint: made again, it has the same id. */
  id: string;
  endpoint: Endpoint;
  organisationId: string;
  type: string;
  /** Its body (payload.ts). */
  payload: string;
  /** Its change record's position. */
  position: string;
  /** Its change record's time. */
  createdAt: Date;
}

/**
 * A round's lease on the first attempts of the messages it sends itself (a row of
 * `webhook_fanout_leases`), and how many of them are still to be recorded.
 */
export interface Lease {
  id: string;
  unrecorded: number;
}

/** A message waiting in this process for its first attempt: it has no row yet. */
export interface DirectMessage {
  message: NewMessage;
  lease: Lease;
  /** The time (this process's clock) after which its first attempt is left to the queue. */
  sendBy: number;
}

/** What the engine logs with: pino's logger, or one that hands the lines to another thread's. */
export interface EngineLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}
