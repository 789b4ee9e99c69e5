import { p } from '@mikro-orm/core';
import { defineTenantEntity } from '../../db/base.entity';

/** A person who signs in to the dashboard of one organisation. */
export const UserSchema = defineTenantEntity({
  name: 'User',
  tableName: 'users',
  idKind: 'user',
  // No list pages: a user is found by email or by session.
  listedBy: [],
  indexes: [{ name: 'users_organisation_id_index', properties: ['organisationId'] }],
  properties: {
    /** Lower case; unique across organisations. */
    email: p.text().unique('users_email_unique'),
    /** argon2id. */
    passwordHash: p.text(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
