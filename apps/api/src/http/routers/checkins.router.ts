import { initServer } from '@ts-rest/express';
import { contract, type CheckinBatchItem, type CheckinBatchResult } from '@boxoffice/contract';
import { AppError } from '../../core/errors';
import {
  recordCheckinBatch,
  type BatchOutcome,
} from '../../modules/checkins/checkin-batch.service';
import {
  getCheckin,
  checkinList,
  recordCheckin,
  toCheckinResource,
} from '../../modules/checkins/checkin.service';
import type { ScanOutcome } from '../metrics';
import { write } from '../write';
import { readHandlers } from './read-handlers';

const s = initServer();

/** Client mistakes carry their code as the reason; anything else (a 5xx) is `error`. */
const reasonOf = (error: unknown): string =>
  error instanceof AppError && error.status < 500 ? error.code : 'error';

/** What became of a scan of a batch that ran, for `onScan`. */
const outcomeOf = (item: CheckinBatchItem, result: CheckinBatchResult): ScanOutcome => {
  const direction = item.direction ?? 'entry';
  return result.status === 201
    ? { direction, admitted: true }
    : { direction, admitted: false, reason: result.code ?? 'error' };
};

/** `onScan` hears of every scan that reached the service (e.g. to count them). */
export const checkinsRouter = (onScan: (outcome: ScanOutcome) => void = () => undefined) =>
  s.router(contract.checkins, {
    ...readHandlers({
      name: 'checkins',
      list: checkinList.page,
      get: getCheckin,
      render: toCheckinResource,
    }),
    create: async ({ body, res }) => {
      const direction = body.direction ?? 'entry';
      // Set by the operation, which a replayed answer does not run. (An object: TypeScript does
      // not see a callback assign a local, and would take `false` for all that follows.)
      const scan = { recorded: false };
      try {
        const answer = await write(res, async (tx) => {
          const checkin = await recordCheckin(tx, body);
          scan.recorded = true;
          return {
            status: 201 as const,
            body: { data: toCheckinResource(checkin, tx.livemode) },
          };
        });
        // A replayed answer is not a new scan.
        if (scan.recorded) onScan({ direction, admitted: true });
        return answer;
      } catch (error) {
        const aboutTheKey = error instanceof AppError && error.code.startsWith('idempotency_');
        if (!aboutTheKey) onScan({ direction, admitted: false, reason: reasonOf(error) });
        throw error;
      }
    },
    createBatch: async ({ body, res }) => {
      // Set by the operation, which a replayed answer does not run (see `create`).
      const batch = { outcomes: [] as BatchOutcome[] };
      const answer = await write(res, async (tx) => {
        batch.outcomes = await recordCheckinBatch(tx, body.checkins);
        return {
          status: 200 as const,
          body: { data: batch.outcomes.map((outcome) => outcome.result) },
        };
      });
      // Only the scans that ran count: not those answered for their idempotency_key.
      batch.outcomes.forEach((outcome, i) => {
        const item = body.checkins[i];
        if (outcome.ran && item) onScan(outcomeOf(item, outcome.result));
      });
      return answer;
    },
  });
