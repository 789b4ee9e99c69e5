import { iso } from './iso-time';

/**
 * The fields every resource the API renders ends with, in the contract's order
 * (`resourceSchema`: its `Mode`, then its `Stamps`).
 */
export const stampsOf = (row: { createdAt: Date; updatedAt: Date }, livemode: boolean) => ({
  livemode,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});
