import { initContract } from '@ts-rest/core';
import { attendeesContract } from './attendees';
import { checkinsContract } from './checkins';
import { eventsContract } from './events';
import { exportsContract } from './exports';
import { ordersContract } from './orders';
import { payoutsContract } from './payouts';
import { testHelpersContract } from './test-helpers';
import { ticketsContract } from './tickets';
import { tiersContract } from './tiers';
import { webhookEndpointsContract } from './webhook-endpoints';

export * from './common';
export * from './events';
export * from './tiers';
export * from './orders';
export * from './tickets';
export * from './attendees';
export * from './checkins';
export * from './payouts';
export * from './webhook-endpoints';
export * from './exports';
// The shapes every resource schema is made of, so that packages built on the schemas can name them.
export type { Mode as ResourceModeShape, Stamps as ResourceStampsShape } from './resource-schema';
export * from './test-helpers';

const c = initContract();

/** The public API v1. Paths are relative to the base path `/api/v1`. */
export const contract = c.router({
  events: eventsContract,
  tiers: tiersContract,
  orders: ordersContract,
  tickets: ticketsContract,
  attendees: attendeesContract,
  checkins: checkinsContract,
  payouts: payoutsContract,
  webhookEndpoints: webhookEndpointsContract,
  exports: exportsContract,
  testHelpers: testHelpersContract,
});
export type Contract = typeof contract;

/** Where the contract's paths are mounted on a Boxoffice server. */
export const API_BASE_PATH = '/api/v1';
