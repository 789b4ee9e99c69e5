import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttemptLimits } from '../src/http/attempt-limit';
import { generateKey, MAX_ACTIVE_KEYS } from '../src/modules/api-keys/api-key.service';
import { Visitor as BaseVisitor, uniqueEmail } from './dashboard-visitor';
import { call, getTestOrm, startTestServer, type TestServer } from './setup';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    attemptLimits: createAttemptLimits({
      limits: {
        signups: { points: 1000, durationSeconds: 3600 },
        signInsByAccount: { points: 3, durationSeconds: 60 },
        signInsByAddress: { points: 1000, durationSeconds: 60 },
        apiAuthFailures: { points: 1000, durationSeconds: 60 },
      },
    }),
  });
});
afterAll(() => server.close());

/** A visitor of this file's server. */
class Visitor extends BaseVisitor {
  constructor() {
    super(server);
  }
}

describe('sign-up, sign-in and sessions', () => {
  it('signs up on the free plan and sets a safe session cookie', async () => {
    const visitor = new Visitor();
    const { result } = await visitor.signUp();
    expect(result.body.organisation.plan).toBe('free');
    expect(result.body.user.email).toMatch(/@example.com$/);
    const cookie = result.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^bxo_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/dashboard/i);
    const session = await visitor.request('GET', '/session');
    expect(session.status).toBe(200);
    expect(session.body.organisation.id).toBe(result.body.organisation.id);
  });

  it('refuses a second account with the same email (any case)', async () => {
    const first = new Visitor();
    const { email } = await first.signUp();
    const again = await new Visitor().request('POST', '/signup', {
      organisation_name: 'Copycat',
      email: email.toUpperCase(),
      password: 'another passphrase',
    });
    expect(again.status).toBe(409);
  });

  it('validates sign-up fields by name', async () => {
    const result = await new Visitor().request('POST', '/signup', {
      organisation_name: 'X',
      email: 'not-an-email',
      password: 'short',
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/email|password/);
  });

  it('signs in with the right password only, and signs out', async () => {
    const owner = new Visitor();
    const { email, password } = await owner.signUp();
    const wrong = await new Visitor().request('POST', '/login', { email, password: 'wrong one!' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('Incorrect email or password');
    const unknown = await new Visitor().request('POST', '/login', {
      email: uniqueEmail(),
      password,
    });
    expect(unknown.status).toBe(401);

    const visitor = new Visitor();
    const login = await visitor.request('POST', '/login', { email, password });
    expect(login.status).toBe(200);
    expect((await visitor.request('GET', '/keys')).status).toBe(200);
    expect((await visitor.request('POST', '/logout')).status).toBe(204);
    const after = await visitor.request('GET', '/keys', undefined, { cookie: visitor.cookie });
    expect(after.status).toBe(401);
  });

  it('rate-limits sign-in attempts per address and email', async () => {
    const owner = new Visitor();
    const { email } = await owner.signUp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await new Visitor().request('POST', '/login', { email, password: 'nope nope' })).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('refuses signed-out callers', async () => {
    for (const [method, path] of [
      ['GET', '/session'],
      ['GET', '/keys'],
      ['POST', '/keys'],
      ['GET', '/plan'],
      ['PUT', '/plan'],
    ] as const) {
      const result = await new Visitor().request(method, path, method === 'GET' ? undefined : {});
      expect(result.status, `${method} ${path}`).toBe(401);
    }
  });
});

describe('CSRF protection', () => {
  it('refuses state changes without the session’s CSRF token', async () => {
    const visitor = new Visitor();
    await visitor.signUp();
    const missing = await call(server, 'POST', '/dashboard/api/keys', {
      body: { name: 'x', scopes: ['read'] },
      headers: { cookie: visitor.cookie },
    });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('csrf_failed');
    const wrong = await call(server, 'PUT', '/dashboard/api/plan', {
      body: { plan: 'pro' },
      headers: { cookie: visitor.cookie, 'x-csrf-token': 'guess' },
    });
    expect(wrong.status).toBe(403);
    expect((await visitor.request('GET', '/plan')).body.data.plan).toBe('free');
  });

  it('refuses cross-origin sign-ins and state changes', async () => {
    const visitor = new Visitor();
    const { email, password } = await visitor.signUp();
    const login = await new Visitor().request(
      'POST',
      '/login',
      { email, password },
      { origin: 'https://evil.example' },
    );
    expect(login.status).toBe(403);
    const revoke = await visitor.request(
      'POST',
      '/keys',
      { name: 'x', scopes: ['read'] },
      {
        origin: 'https://evil.example',
      },
    );
    expect(revoke.status).toBe(403);
  });
});

describe('API keys and the plan', () => {
  it('generates a key shown once, which the public API refuses until the upgrade, and revokes it', async () => {
    const visitor = new Visitor();
    await visitor.signUp();
    const created = await visitor.request('POST', '/keys', { name: 'Door app', scopes: ['read'] });
    expect(created.status).toBe(201);
    const { key, secret } = created.body.data;
    expect(secret).toMatch(/^bxo_live_[0-9A-Za-z]{32,}$/);
    expect(key.hint).toBe(`bxo_live_…${secret.slice(-4)}`);
    expect(key).toMatchObject({
      name: 'Door app',
      scopes: ['read'],
      status: 'active',
      last_used_at: null,
    });

    const list = await visitor.request('GET', '/keys');
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    expect((await call(server, 'GET', '/api/v1/events', { key: secret })).status).toBe(402);
    const upgraded = await visitor.request('PUT', '/plan', { plan: 'pro' });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.data.plan).toBe('pro');
    expect(upgraded.body.data.history[0]).toMatchObject({ from: 'free', to: 'pro' });
    expect((await call(server, 'GET', '/api/v1/events', { key: secret })).status).toBe(200);

    const revoked = await visitor.request('POST', `/keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
    expect((await call(server, 'GET', '/api/v1/events', { key: secret })).status).toBe(401);

    const downgraded = await visitor.request('PUT', '/plan', { plan: 'free' });
    expect(downgraded.body.data.history.map((c: { to: string }) => c.to)).toEqual(['free', 'pro']);
  });

  it('needs at least one known scope', async () => {
    const visitor = new Visitor();
    await visitor.signUp();
    expect((await visitor.request('POST', '/keys', { name: 'x', scopes: [] })).status).toBe(400);
    expect((await visitor.request('POST', '/keys', { name: 'x', scopes: ['admin'] })).status).toBe(
      400,
    );
  });

  it('never shows or revokes another organisation’s keys', async () => {
    const alice = new Visitor();
    await alice.signUp();
    const bob = new Visitor();
    await bob.signUp();
    const created = await alice.request('POST', '/keys', { name: 'Alice', scopes: ['read'] });
    const aliceKey = created.body.data.key.id;
    expect((await bob.request('GET', '/keys')).body.data).toEqual([]);
    const attempt = await bob.request('POST', `/keys/${aliceKey}/revoke`);
    expect(attempt.status).toBe(404);
    const still = await alice.request('GET', '/keys');
    expect(still.body.data[0].status).toBe('active');
  });
});

describe('key limit', () => {
  it('allows 50 active keys, even to concurrent creations, and says why it refuses the next', async () => {
    expect(MAX_ACTIVE_KEYS).toBe(50);
    const visitor = new Visitor();
    const { result } = await visitor.signUp();
    const organisationId: string = result.body.organisation.id;
    const em = (await getTestOrm()).em.fork();
    for (let i = 0; i < MAX_ACTIVE_KEYS - 5; i++) {
      await generateKey(em.fork(), { organisationId, name: `Key ${i}`, scopes: ['read'] });
    }
    const listed = await visitor.request('GET', '/keys');
    expect(listed.body.max_active_keys).toBe(50);

    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        visitor.request('POST', '/keys', { name: `Race ${i}`, scopes: ['read'] }),
      ),
    );
    expect(created.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = created.filter((r) => r.status === 409);
    expect(refused).toHaveLength(7);
    expect(refused[0]!.body).toEqual({
      code: 'key_limit_reached',
      error:
        'This organisation already has 50 active API keys, the most it can have. Revoke a key it no longer uses, then generate a new one.',
    });
    const keys = (await visitor.request('GET', '/keys')).body.data as {
      id: string;
      status: string;
    }[];
    expect(keys.filter((key) => key.status === 'active')).toHaveLength(50);

    // The operator CLI's path, the service, refuses too.
    await expect(
      generateKey(em.fork(), { organisationId, name: 'CLI', scopes: ['read'] }),
    ).rejects.toMatchObject({ status: 409, code: 'key_limit_reached' });

    // Revoked keys do not count.
    expect((await visitor.request('POST', `/keys/${keys[0]!.id}/revoke`)).status).toBe(200);
    expect(
      (await visitor.request('POST', '/keys', { name: 'Again', scopes: ['read'] })).status,
    ).toBe(201);
    expect(
      (await visitor.request('POST', '/keys', { name: 'Over', scopes: ['read'] })).status,
    ).toBe(409);
  });
});

describe('text the database cannot store', () => {
  it.each([
    ['NUL', 'Door\u0000app'],
    ['an unpaired surrogate', 'Door\ud800app'],
  ])('refuses %s in each text field with a 400 naming it', async (_name, bad) => {
    const signup = await new Visitor().request('POST', '/signup', {
      organisation_name: bad,
      email: uniqueEmail(),
      password: 'a long passphrase',
    });
    expect(signup.status, JSON.stringify(signup.body)).toBe(400);
    expect(signup.body.code).toBe('validation_failed');
    expect(signup.body.error).toBe(
      'organisation_name must be text without NUL characters or unpaired UTF-16 surrogates',
    );

    const visitor = new Visitor();
    await visitor.signUp();
    const key = await visitor.request('POST', '/keys', { name: bad, scopes: ['read'] });
    expect(key.status, JSON.stringify(key.body)).toBe(400);
    expect(key.body.error).toBe(
      'name must be text without NUL characters or unpaired UTF-16 surrogates',
    );
  });

  it('refuses NUL in the key id of the path with a 400 naming it', async () => {
    const visitor = new Visitor();
    await visitor.signUp();
    for (const id of ['key_%00', '%00']) {
      const result = await visitor.request('POST', `/keys/${id}/revoke`);
      expect(result.status, `${id}: ${JSON.stringify(result.body)}`).toBe(400);
      expect(result.body.error).toBe(
        'id must be text without NUL characters or unpaired UTF-16 surrogates',
      );
    }
    // A surrogate cannot even be percent-encoded as UTF-8: the path itself is refused.
    expect((await visitor.request('POST', '/keys/key_%ED%A0%80/revoke')).status).toBe(400);
    expect((await visitor.request('POST', '/keys/key_unknown/revoke')).status).toBe(404);
  });
});

describe('cookies', () => {
  it('an undecodable session cookie counts as absent: sign-in still works', async () => {
    const owner = new Visitor();
    const { email, password } = await owner.signUp();
    const broken = new Visitor();
    broken.cookie = 'bxo_session=%E0%A4%A';
    const session = await broken.request('GET', '/session');
    expect(session.status).toBe(401);
    expect(session.body.code).toBe('not_signed_in');
    // The browser still sends the broken cookie along with the sign-in.
    const login = await call(server, 'POST', '/dashboard/api/login', {
      body: { email, password },
      headers: { cookie: 'bxo_session=%E0%A4%A' },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const good = login.headers.get('set-cookie')!.split(';')[0]!;
    // A broken cookie of another name does not hide a good session cookie.
    const both = await call(server, 'GET', '/dashboard/api/session', {
      headers: { cookie: `theme=%E0%A4%A; ${good}` },
    });
    expect(both.status).toBe(200);
    expect(both.body.user.email).toBe(email);
  });
});

describe('passwords', () => {
  it.each([
    ['ten spaces', '          '],
    ['one repeated letter', 'aaaaaaaaaa'],
    ['a sequence', '1234567890'],
    ['a common password', 'password12'],
    ['a keyboard row', 'qwertyuiop'],
    ['the organisation’s name', 'riverside hall 2026'],
  ])('refuses %s at sign-up, saying why', async (_name, password) => {
    const email = uniqueEmail();
    const result = await new Visitor().request('POST', '/signup', {
      organisation_name: 'Riverside Hall',
      email,
      password,
    });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(result.body.code).toBe('weak_password');
    expect(result.body.error).toMatch(/^password is too easy to guess\. \S.+\.$/);
    // No account was created: the email is still free.
    const retry = await new Visitor().request('POST', '/signup', {
      organisation_name: 'Riverside Hall',
      email,
      password: 'a long passphrase',
    });
    expect(retry.status).toBe(201);
  });

  it('says what is wrong in the estimator’s words', async () => {
    const result = await new Visitor().request('POST', '/signup', {
      organisation_name: 'Riverside Hall',
      email: uniqueEmail(),
      password: 'aaaaaaaaaa',
    });
    expect(result.body.error).toBe(
      'password is too easy to guess. Repeated characters like "aaa" are easy to guess. Add more words that are less common. Avoid repeated words and characters.',
    );
  });

  it('keeps the minimum length', async () => {
    const result = await new Visitor().request('POST', '/signup', {
      organisation_name: 'Riverside Hall',
      email: uniqueEmail(),
      password: 'Zq8#vL2!x',
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('password must be at least 10 characters');
  });

  it('accepts passphrases and random passwords', async () => {
    for (const password of ['correct horse battery', 'a long passphrase', 'Zq8#vL2!xT4&']) {
      const result = await new Visitor().request('POST', '/signup', {
        organisation_name: 'Riverside Hall',
        email: uniqueEmail(),
        password,
      });
      expect(result.status, `${password}: ${JSON.stringify(result.body)}`).toBe(201);
    }
  });
});
