import { WEBHOOK_TEST_EVENT_TYPE } from '@boxoffice/contract';
import type { Pool } from 'pg';
import type { Attempt, Send } from './attempt';
import { messagePayload } from './payload';
import type { JobOutcome, QueuedJob } from './queue';
import type { Recorder, Retry } from './recorder';
import { endpointsToSend, type EndpointToSend } from './webhook-endpoint.repository';
import { messagesToSend, type MessageToSend } from './webhook-message.repository';

export interface QueuedDeliveryOptions {
  pool: Pool;
  send: Send;
  recorder: Recorder;
  /** Retries after the first attempt: a failure past them gives the message up. */
  retryLimit: number;
}

interface ToSend {
  job: QueuedJob;
  message: MessageToSend;
  endpoint: EndpointToSend;
  body: string;
}

/**
 * Delivers a batch of the queue's jobs: endpoints side by side, each endpoint's messages one after
 * another in change order; records the attempts together. A message's body is made again from its
 * change record, as its first attempt made it (or is a test event's, stored). A failed attempt
 * with retries left is recorded with the job of its next retry, due by the schedule; a test event
 * is attempted once (it is there to be seen working: a failure shows at once, and it can be sent
 * again).
 */
export async function deliverQueued(
  jobs: QueuedJob[],
  options: QueuedDeliveryOptions,
): Promise<JobOutcome[]> {
  const ordered = [...jobs].sort(
    (a, b) => a.data.seq - b.data.seq || (a.data.message_id < b.data.message_id ? -1 : 1),
  );
  const messages = await messagesToSend(
    options.pool,
    ordered.map((job) => job.data.message_id),
  );
  const endpoints = await endpointsToSend(options.pool, [
    ...new Set(messages.map((message) => message.endpoint_id)),
  ]);
  const messageById = new Map(messages.map((message) => [message.id, message]));
  const endpointById = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const byEndpoint = new Map<string, ToSend[]>();
  const outcomes: JobOutcome[] = [];
  const cancelled: string[] = [];
  for (const job of ordered) {
    const message = messageById.get(job.data.message_id);
    const endpoint = message && endpointById.get(message.endpoint_id);
    // Deleted with its endpoint, or already delivered at once: nothing to send.
    if (!message || !endpoint || message.status === 'delivered') {
      outcomes.push({ id: job.id, ok: true });
      continue;
    }
    const body =
      message.payload ??
      (message.data === null
        ? null
        : messagePayload(
            message.id,
            message.type,
            message.created_at,
            message.livemode,
            message.data,
          ));
    // Its endpoint disabled, or its change record purged (past its retention, as the message
    // nearly is): cancelled.
    if (endpoint.status !== 'enabled' || body === null) {
      cancelled.push(message.id);
      outcomes.push({ id: job.id, ok: true });
      continue;
    }
    const line = byEndpoint.get(endpoint.id) ?? [];
    line.push({ job, message, endpoint, body });
    byEndpoint.set(endpoint.id, line);
  }

  const attempts: Attempt[] = [];
  const retries: Retry[] = [];
  await Promise.all(
    [...byEndpoint.values()].map(async (line) => {
      for (const { job, message, endpoint, body } of line) {
        const { at, result } = await options.send(message.id, endpoint, body);
        // pg-boss's own retries of this job (its batch not recorded) may each have sent it.
        const attemptsBefore =
          (job.data.attempts ?? 0) + job.retryCount + (job.data.after_direct ? 1 : 0);
        const final =
          !result.ok &&
          (attemptsBefore >= options.retryLimit || message.type === WEBHOOK_TEST_EVENT_TYPE);
        attempts.push({ messageId: message.id, endpointId: endpoint.id, at, result, final });
        if (!result.ok && !final) {
          retries.push({ messageId: message.id, seq: job.data.seq, attempts: attemptsBefore + 1 });
        }
        // Done either way: a retry is a job of its own.
        outcomes.push({ id: job.id, ok: true });
      }
    }),
  );
  await options.recorder.recordQueued(attempts, cancelled, retries);
  return outcomes;
}
