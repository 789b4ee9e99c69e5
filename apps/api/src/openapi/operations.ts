import { contract, type Contract } from '@boxoffice/contract';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';

/** An operation of the contract, `<router>.<route>`: `events.list`, `webhookEndpoints.delete`. */
export type OperationKey = {
  [R in keyof Contract]: `${R}.${Extract<keyof Contract[R], string>}`;
}[keyof Contract];

function walk(router: AppRouter, prefix = ''): Array<[string, AppRoute]> {
  return Object.entries(router).flatMap(([key, value]): Array<[string, AppRoute]> =>
    isAppRoute(value) ? [[`${prefix}${key}`, value]] : walk(value, `${prefix}${key}.`),
  );
}

/**
 * Every route of the contract with its operation key, which is also its `operationId` in the
 * document (the generator's `concatenated-path` ids), in the contract's order.
 */
export const OPERATIONS = walk(contract) as ReadonlyArray<[OperationKey, AppRoute]>;
