import { z } from 'zod';

/**
 * Which of the organisation's two environments a request acts on: `live` (its real data) or `test`
 * (its test environment, whose keys are `bxo_test_…`). The keys and webhooks routes read it from
 * this header; without it they act on live data. The session and the plan are the same in both.
 */
export const MODE_HEADER = 'x-boxoffice-mode';
export const MODES = ['live', 'test'] as const;
export const ModeSchema = z.enum(MODES);
export type Mode = z.infer<typeof ModeSchema>;

/** The header of the routes that act on one mode: absent means `live`; anything else is a 400. */
export const ModeHeadersSchema = z.object({ [MODE_HEADER]: ModeSchema.optional() });
export type ModeHeaders = z.infer<typeof ModeHeadersSchema>;
