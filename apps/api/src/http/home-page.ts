import type { RequestHandler } from 'express';
import { API_BASE_PATH } from '@boxoffice/contract';
import { REFERENCE_PATH } from './reference-page';

const DASHBOARD_PATH = '/dashboard/';

/**
 * `/`: a person's browser gets a short page leading to the dashboard and the API reference; a
 * program (anything that does not prefer HTML, curl included) gets JSON naming where the API and
 * its description are.
 */
export function homePage(options: { dashboard: boolean }): RequestHandler {
  const links = {
    api: API_BASE_PATH,
    openapi: '/openapi.json',
    reference: REFERENCE_PATH,
    ...(options.dashboard ? { dashboard: DASHBOARD_PATH } : {}),
  };
  const json = {
    name: 'Boxoffice API',
    ...links,
    authentication: `Authorization: Bearer <API key>, on every request to ${API_BASE_PATH}`,
  };
  const html = page(options.dashboard);
  return (req, res) => {
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      res.set('Cache-Control', 'no-cache').type('html').send(html);
    } else {
      res.set('Cache-Control', 'no-cache').json(json);
    }
  };
}

// No inline script or style: the page carries the origin's policy (`style-src 'self'`).
const page = (dashboard: boolean) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
    <title>Boxoffice</title>
  </head>
  <body>
    <main>
      <h1>Boxoffice</h1>
      <p>The developer platform of Boxoffice, the event-ticketing platform.</p>
      <ul>
${
  dashboard
    ? `        <li><a href="${DASHBOARD_PATH}">Dashboard</a>: sign up or sign in, generate API keys, choose a plan.</li>\n`
    : ''
}        <li><a href="${REFERENCE_PATH}">API reference</a>: every endpoint, with examples.</li>
        <li>Programs call the JSON API at <code>${API_BASE_PATH}</code>, described by <a href="/openapi.json">/openapi.json</a>.</li>
      </ul>
    </main>
  </body>
</html>
`;
