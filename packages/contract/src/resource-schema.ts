import { z } from 'zod';
import { TimestampSchema } from './common';

/**
 * The stamps of the resources that change (check-ins never do; webhook endpoints say more of
 * theirs). A named type, so that the published declarations keep their descriptions. Internal, as
 * `resourceSchema`.
 */
export type Stamps = {
  /** When it was created (ISO-8601, UTC). */
  created_at: typeof TimestampSchema;
  /** When it last changed (ISO-8601, UTC); `updated_since` filters on it. */
  updated_at: typeof TimestampSchema;
};
const stamps: Stamps = { created_at: TimestampSchema, updated_at: TimestampSchema };

/** Whether an object is live data or test data: every object the API renders says. Internal. */
export type Mode = {
  /** `true` for live data, `false` for test data (made and read with a `bxo_test_` key). */
  livemode: z.ZodBoolean;
};
export const mode: Mode = { livemode: z.boolean() };

/**
 * A resource as the API renders it: its own `fields` (`id` first), then its `Mode`, then the
 * `Stamps`.
 */
export const resourceSchema = <Fields extends z.ZodRawShape>(fields: Fields) =>
  z.object<Fields & Mode & Stamps>({ ...fields, ...mode, ...stamps });
