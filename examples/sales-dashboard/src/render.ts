import type { Event, Tier } from '@boxoffice/sdk';
import { ORDER_STATUSES, type EventDashboard, type EventPicker } from './data';
import { html, SafeHtml } from './html';
import { formatCount, formatMoney } from './money';

export const REFRESH_SECONDS = 30;

const STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f5f6f8; }
  main { max-width: 1040px; margin: 0 auto; padding: 24px; }
  h1 { margin: 0 0 4px; font-size: 26px; }
  h2 { margin: 28px 0 10px; font-size: 18px; }
  a { color: #2456c8; }
  .meta, footer { color: #5b6475; }
  footer { margin-top: 32px; font-size: 13px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px;
    margin-top: 20px; }
  .card { background: #fff; border-radius: 8px; padding: 14px 16px; box-shadow: 0 1px 2px #0001; }
  .card .value { font-size: 24px; font-weight: 600; }
  table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 8px;
    box-shadow: 0 1px 2px #0001; }
  th, td { padding: 8px 12px; text-align: left; border-bottom: 1px solid #e7e9ee; }
  th { font-size: 13px; color: #5b6475; font-weight: 600; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  .bar { height: 8px; background: #e7e9ee; border-radius: 4px; overflow: hidden; min-width: 80px; }
  .bar span { display: block; height: 100%; background: #2f9e6b; }
  .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
    background: #e7e9ee; }
  .badge.on_sale, .badge.published, .badge.completed { background: #d8f3e6; }
  .badge.sold_out, .badge.cancelled, .badge.refunded { background: #fbe0e0; }
  .badge.paused, .badge.pending, .badge.draft { background: #fdf0cf; }
`;

/** A constant of this file, not input: it goes out as it is. */
const STYLESHEET = new SafeHtml(STYLE);

function page(title: string, body: SafeHtml, refresh = true): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${refresh && html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}" />`}
        <title>${title}</title>
        <style>
          ${STYLESHEET}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.value;
}

function percent(part: number, whole: number): number {
  return whole > 0 ? Math.min(100, Math.round((part / whole) * 100)) : 0;
}

function bar(part: number, whole: number): SafeHtml {
  return html`<div class="bar" role="img" aria-label="${percent(part, whole)} %">
    <span style="width: ${percent(part, whole)}%"></span>
  </div>`;
}

function dateTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(iso));
}

function time(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, timeStyle: 'medium' }).format(new Date(iso));
}

function footer(loadedAt: Date, reads: number, readsLeft: number | undefined): SafeHtml {
  const left = readsLeft === undefined ? '' : `, ${readsLeft} reads left in this minute's window`;
  return html`<footer>
    Updated ${loadedAt.toISOString().slice(11, 19)} UTC · refreshes every ${REFRESH_SECONDS} s ·
    this view took ${reads} API ${reads === 1 ? 'read' : 'reads'}${left}
  </footer>`;
}

/** A column's heading; numbers are right-aligned. */
type Column = string | { label: string; num: true };
const num = (label: string): Column => ({ label, num: true });

/** A table of `rows`, or of one row saying `empty` when there are none. */
function table(id: string, columns: Column[], rows: SafeHtml[], empty: string): SafeHtml {
  return html`<table id="${id}">
    <thead>
      <tr>
        ${columns.map((column) =>
          typeof column === 'string'
            ? html`<th>${column}</th>`
            : html`<th class="num">${column.label}</th>`,
        )}
      </tr>
    </thead>
    <tbody>
      ${
        rows.length
          ? rows
          : html`<tr>
              <td colspan="${columns.length}">${empty}</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

function tierRow(tier: Tier): SafeHtml {
  const revenue = tier.quantity_sold * tier.price;
  const unlimited = tier.quantity_total === null;
  return html`<tr>
    <td>${tier.name}</td>
    <td><span class="badge ${tier.status}">${tier.status.replace('_', ' ')}</span></td>
    <td class="num">${formatMoney(tier.price, tier.currency)}</td>
    <td class="num">${formatCount(tier.quantity_sold)}</td>
    <td class="num">${unlimited ? '∞' : formatCount(tier.quantity_total ?? 0)}</td>
    <td class="num">${unlimited ? '∞' : formatCount(tier.quantity_available ?? 0)}</td>
    <td class="num">${formatMoney(revenue, tier.currency)}</td>
    <td>${unlimited ? '' : bar(tier.quantity_sold, tier.quantity_total ?? 0)}</td>
  </tr>`;
}

export function renderEvent(
  view: EventDashboard,
  readsLeft: number | undefined,
  options: { linkToPicker: boolean },
): string {
  const { event, tiers } = view;
  const sold = tiers.reduce((sum, tier) => sum + tier.quantity_sold, 0);
  const revenue = tiers.reduce((sum, tier) => sum + tier.quantity_sold * tier.price, 0);
  const limited = tiers.every((tier) => tier.quantity_total !== null);
  const offered = tiers.reduce((sum, tier) => sum + (tier.quantity_total ?? 0), 0);
  const orders = ORDER_STATUSES.reduce((sum, status) => sum + view.orders[status], 0);
  const where = [dateTime(event.starts_at, event.timezone), event.venue]
    .filter(Boolean)
    .join(' · ');

  const body = html` ${options.linkToPicker && html`<p class="meta"><a href="/">All events</a></p>`}
    <h1>${event.name}</h1>
    <p class="meta">${where} · <span class="badge ${event.status}">${event.status}</span></p>

    <section class="cards">
      <div class="card">
        <div class="meta">Tickets sold</div>
        <div class="value">
          ${formatCount(sold)}${limited && html` <small>/ ${formatCount(offered)}</small>`}
        </div>
      </div>
      <div class="card">
        <div class="meta">Ticket revenue</div>
        <div class="value">${formatMoney(revenue, event.currency)}</div>
      </div>
      <div class="card">
        <div class="meta">Orders</div>
        <div class="value">${formatCount(orders)}</div>
      </div>
      <div class="card">
        <div class="meta">Checked in</div>
        <div class="value">
          ${formatCount(view.checkedIn)} <small>/ ${formatCount(view.tickets)}</small>
        </div>
        ${bar(view.checkedIn, view.tickets)}
      </div>
    </section>

    <h2>Sales by tier</h2>
    ${table(
      'tiers',
      [
        'Tier',
        'Status',
        num('Price'),
        num('Sold'),
        num('Total'),
        num('Available'),
        num('Revenue'),
        '',
      ],
      tiers.map(tierRow),
      'No ticket tiers yet.',
    )}

    <h2>Orders by status</h2>
    ${table(
      'orders',
      ['Status', num('Orders')],
      ORDER_STATUSES.map(
        (status) =>
          html`<tr>
            <td><span class="badge ${status}">${status}</span></td>
            <td class="num">${formatCount(view.orders[status])}</td>
          </tr>`,
      ),
      'No orders yet.',
    )}

    <h2>Check-in</h2>
    <p id="checkin-progress">
      ${formatCount(view.checkedIn)} of ${formatCount(view.tickets)} tickets checked in
      (${percent(view.checkedIn, view.tickets)} %) · ${formatCount(view.scans)} scans in total
    </p>
    ${bar(view.checkedIn, view.tickets)}
    ${table(
      'recent',
      ['Time', 'Direction', 'Attendee', 'Gate', 'Device'],
      view.recent.map(
        ({ checkin, name }) =>
          html`<tr>
            <td>${time(checkin.scanned_at, event.timezone)}</td>
            <td>${checkin.direction === 'entry' ? 'In' : 'Out'}</td>
            <td>${name ?? '—'}</td>
            <td>${checkin.gate ?? '—'}</td>
            <td>${checkin.device_id ?? '—'}</td>
          </tr>`,
      ),
      'No check-ins yet.',
    )}
    ${footer(view.loadedAt, view.reads, readsLeft)}`;
  return page(`${event.name} · Sales`, body);
}

function eventLink(event: Event): SafeHtml {
  return html`<tr>
    <td><a href="/events/${encodeURIComponent(event.id)}">${event.name}</a></td>
    <td>${dateTime(event.starts_at, event.timezone)}</td>
    <td>${event.venue ?? ''}</td>
  </tr>`;
}

export function renderPicker(view: EventPicker, readsLeft: number | undefined): string {
  const body = html` <h1>Sales dashboard</h1>
    <p class="meta">Published events. Choose one to see its sales and check-ins.</p>
    ${table('events', ['Event', 'Starts', 'Venue'], view.events.map(eventLink), 'No published events.')}
    ${footer(view.loadedAt, view.reads, readsLeft)}`;
  return page('Sales dashboard', body);
}

/** An error page; `retry` makes it refresh itself like the dashboard (for passing failures). */
export function renderError(
  title: string,
  message: string,
  options: { retry?: boolean; requestId?: string | undefined } = {},
): string {
  const body = html`<p class="meta"><a href="/">Back to the dashboard</a></p>
    <h1>${title}</h1>
    <p>${message}</p>
    ${options.requestId && html`<p class="meta">Request id: <code>${options.requestId}</code></p>`}`;
  return page(title, body, options.retry ?? false);
}
