import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrm, type Orm } from '../db/orm';
import { entities } from '../modules/entities';
import { Organisation } from '../modules/organisations/organisation.entity';
import { RequestEntityManagers } from './locals';

describe('RequestEntityManagers', () => {
  let orm: Orm;

  beforeAll(async () => {
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 1 });
  });
  afterAll(() => orm.close());

  it("starts from the ORM's entity manager until the request forks its own, then from that", () => {
    const managers = new RequestEntityManagers(orm.em);
    expect(managers.base).toBe(orm.em);
    const own = managers.own;
    expect(own).not.toBe(orm.em);
    expect(managers.own).toBe(own);
    expect(managers.base).toBe(own);
  });

  it("gives each request an identity map of its own, which a transaction's fork starts with", () => {
    const first = new RequestEntityManagers(orm.em);
    const second = new RequestEntityManagers(orm.em);
    const organisation = first.own.create(Organisation, { name: 'Held by the first request' });
    expect(second.own.getUnitOfWork().getPersistStack().size).toBe(0);
    const fork = first.base.fork({ clear: false });
    expect([...fork.getUnitOfWork().getPersistStack()]).toEqual([organisation]);
  });
});
