import { expect } from 'vitest';
import { call, type CallResult, type TestServer } from './setup';

let sequence = 0;
/** An email no account has yet. */
export const uniqueEmail = (): string => `owner${Date.now()}${(sequence += 1)}@example.com`;

/** A browser-like visitor of the dashboard's API: keeps the session cookie and sends the CSRF token. */
export class Visitor {
  cookie = '';
  csrf = '';

  constructor(readonly server: Pick<TestServer, 'baseUrl'>) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<CallResult> {
    const result = await call(this.server, method, `/dashboard/api${path}`, {
      body,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...headers,
      },
    });
    const setCookie = result.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    if (result.body?.csrf_token) this.csrf = result.body.csrf_token;
    return result;
  }

  async signUp(email = uniqueEmail(), password = 'a long passphrase') {
    const result = await this.request('POST', '/signup', {
      organisation_name: 'Riverside Hall',
      email,
      password,
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return { email, password, result };
  }
}
