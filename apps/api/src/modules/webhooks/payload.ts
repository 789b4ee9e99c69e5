/**
 * A message's body: its head (`id`, `type`, `created_at`, `livemode`) and its object (JSON text: a
 * change record's `data` as PostgreSQL renders it, or a test event's endpoint), `{"id":…,"type":…,
 * "created_at":…,"livemode":…,"data":{"object":…}}`. The one place a body is made: the fan-out's
 * first attempt, the queue's retries (from the same record and message) and test events all call
 * it, so every attempt of a message sends the same bytes, which its signatures cover. `livemode`
 * is the object's own (false for a test environment's changes).
 */
export function messagePayload(
  id: string,
  type: string,
  createdAt: Date,
  livemode: boolean,
  object: string,
): string {
  const head = JSON.stringify({ id, type, created_at: createdAt.toISOString(), livemode });
  return `${head.slice(0, -1)},"data":{"object":${object}}}`;
}
