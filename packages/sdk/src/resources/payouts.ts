import { Resource } from './shared';
import type { Payout, PayoutListParams } from './types';

/** Payouts to the organiser; `amount` is the net. */
export class Payouts extends Resource<Payout, PayoutListParams> {}
