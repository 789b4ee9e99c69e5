import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  toWebhookEndpointResource,
  updateEndpoint,
  withSecret,
} from '../../modules/webhooks/webhook-endpoint.service';
import type { UrlPolicy } from '../../modules/webhooks/url-guard';
import { tenantOf } from '../locals';
import { write } from '../write';

const s = initServer();

/** `/webhook_endpoints`: every route needs the `write` scope (an endpoint receives all changes). */
export const webhookEndpointsRouter = (policy: UrlPolicy) =>
  s.router(contract.webhookEndpoints, {
    list: async ({ query, res }) => {
      const ctx = tenantOf(res);
      const page = { page: query.page ?? 1, limit: query.limit };
      const { rows, total } = await listEndpoints(ctx, page);
      return {
        status: 200 as const,
        body: {
          data: rows.map((row) => toWebhookEndpointResource(row, ctx.livemode)),
          total,
          ...page,
        },
      };
    },
    get: async ({ params, res }) => {
      const ctx = tenantOf(res);
      return {
        status: 200 as const,
        body: { data: toWebhookEndpointResource(await getEndpoint(ctx, params.id), ctx.livemode) },
      };
    },
    create: ({ body, res }) =>
      write(
        res,
        async (tx) => ({
          status: 201 as const,
          body: { data: withSecret(await createEndpoint(tx, body, policy), tx.livemode) },
        }),
        { holdsSecret: true },
      ),
    update: ({ params, body, res }) =>
      write(res, async (tx) => ({
        status: 200 as const,
        body: {
          data: toWebhookEndpointResource(
            await updateEndpoint(tx, params.id, body, policy),
            tx.livemode,
          ),
        },
      })),
    delete: async ({ params, res }) => ({
      status: 200 as const,
      body: {
        data: { ...(await deleteEndpoint(tenantOf(res), params.id)), deleted: true as const },
      },
    }),
  });
