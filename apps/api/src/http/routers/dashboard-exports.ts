import type { Request as ExpressRequest, Response } from 'express';
import type { ExportCreate } from '@boxoffice/contract';
import { DASHBOARD_EXPORTS, type ModeHeaders } from '@boxoffice/dashboard-contract';
import {
  createExport,
  latestExports,
  toExportResource,
  type ExportQueue,
} from '../../modules/exports/export.service';
import { dashboardTenantOf } from '../locals';
import { exportsUnavailable, sendExportFile } from './exports.router';

/** Every route acts on the request's mode: its headers say which. */
type Request = { headers: ModeHeaders; res: Response };

/**
 * Data → Exports, through the same service as the public API: the exports of the request's mode
 * (one of the other mode is not found), under the same limit of exports not yet done.
 */
export const dashboardExportHandlers = (queue: ExportQueue | undefined) => ({
  listExports: async ({ headers, res }: Request) => {
    const ctx = await dashboardTenantOf(res, headers);
    const rows = await latestExports(ctx, DASHBOARD_EXPORTS);
    return {
      status: 200 as const,
      body: { data: rows.map((row) => toExportResource(row, ctx.livemode)) },
    };
  },
  createExport: async ({ body, headers, res }: Request & { body: ExportCreate }) => {
    if (!queue) throw exportsUnavailable();
    const ctx = await dashboardTenantOf(res, headers);
    return {
      status: 202 as const,
      body: { data: toExportResource(await createExport(ctx, body, queue), ctx.livemode) },
    };
  },
  downloadExport: async ({
    headers,
    params,
    req,
    res,
  }: Request & { params: { id: string }; req: ExpressRequest }) =>
    sendExportFile(await dashboardTenantOf(res, headers), req, res, params.id),
});
