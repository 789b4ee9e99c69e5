import { User } from './accounts/user.entity';
import { UserSession } from './accounts/user-session.entity';
import { ApiKey } from './api-keys/api-key.entity';
import { Attendee } from './attendees/attendee.entity';
import { Checkin } from './checkins/checkin.entity';
import { Event } from './events/event.entity';
import { Export } from './exports/export.entity';
import { Order } from './orders/order.entity';
import { Organisation } from './organisations/organisation.entity';
import { PlanChange } from './organisations/plan-change.entity';
import { Payout } from './payouts/payout.entity';
import { Ticket } from './tickets/ticket.entity';
import { Tier } from './tiers/tier.entity';

/** Every entity the ORM maps, for `createOrm`: the database layer itself knows none of them. */
export const entities = [
  Organisation,
  PlanChange,
  ApiKey,
  User,
  UserSession,
  Event,
  Tier,
  Order,
  Ticket,
  Attendee,
  Checkin,
  Payout,
  Export,
];
