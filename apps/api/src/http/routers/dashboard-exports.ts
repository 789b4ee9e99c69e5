import type { Request as ExpressRequest, Response } from 'express';
import type { ExportCreate } from '@boxoffice/contract';
import {
  DASHBOARD_EXPORTS,
  MODE_HEADER,
  type Mode,
  type ModeHeaders,
} from '@boxoffice/dashboard-contract';
import { AppError } from '../../core/errors';
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
  // A download link cannot send the mode's header: it names the mode in its query instead.
  downloadExport: async ({
    headers,
    query,
    params,
    req,
    res,
  }: Request & { query: { mode?: Mode }; params: { id: string }; req: ExpressRequest }) => {
    const header = headers[MODE_HEADER];
    if (query.mode && header && query.mode !== header) {
      throw new AppError(
        400,
        'invalid_request',
        `mode (${query.mode}) and the ${MODE_HEADER} header (${header}) name different modes`,
      );
    }
    const mode = query.mode ?? header;
    return sendExportFile(
      await dashboardTenantOf(res, mode ? { [MODE_HEADER]: mode } : {}),
      req,
      res,
      params.id,
    );
  },
});
