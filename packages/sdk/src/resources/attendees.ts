import type { contract } from '@boxoffice/contract';
import { Resource, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.attendees;

export type Attendee = ItemOf<Routes['get']>;
export type AttendeeListParams = QueryOf<Routes['list']>;

/** Attendees; `checked_in` filters by presence. */
export class Attendees extends Resource<Routes> {}
