/**
 * Emitting domain events. `recordEvent` writes the outbox row; callers pass the same
 * mongoose session as the domain write when the store supports transactions.
 * The relay (delivery to webhooks and integrations) reads these rows.
 */
import type { ClientSession } from 'mongoose';
import { Types } from 'mongoose';
import { Event, type EventType } from '../../models/event';
import type { Principal } from '../security/principal';

export interface Actor {
  type: 'user' | 'api_key' | 'system' | 'signer';
  id: string | null;
  name?: string | null;
}

/** The actor of an event caused by an API request. */
export const actorOf = (p: Principal): Actor => ({ type: p.kind, id: p.id, name: p.name });

export interface NewEvent {
  organizationId: string;
  type: EventType;
  /** What a receiver needs without a second call; never large content. */
  data: Record<string, unknown>;
  actor: Actor;
  resource: { type: string; id: string };
  /** One line for the activity feed, e.g. `Contract "MSA with Acme" created`. */
  summary: string;
}

type RecordedListener = (event: InstanceType<typeof Event>) => void;

/**
 * Who hears of each event a process records outside a transaction: one listener at a time,
 * the relay's immediate path. Each process's services carry their own (`s.events`, made with
 * the engines); services/wiring.ts `wireProcess` points the relay at it (setting it again,
 * e.g. for a second app on the same services, replaces the listener).
 */
export class RecordedEvents {
  #listener: RecordedListener | undefined;

  /** Replaces the listener; `undefined` leaves recorded events to the relay loop. */
  listen(listener: RecordedListener | undefined): void {
    this.#listener = listener;
  }

  notify(event: InstanceType<typeof Event>): void {
    this.#listener?.(event);
  }
}

/** What recording an event needs of the services: the process's notifier. */
export type EventRecorder = { events: RecordedEvents };

export async function recordEvent(s: EventRecorder, e: NewEvent, session?: ClientSession) {
  const [doc] = await Event.create(
    [
      {
        organization_id: new Types.ObjectId(e.organizationId),
        type: e.type,
        data: e.data,
        actor: { type: e.actor.type, id: e.actor.id, name: e.actor.name ?? null },
        resource_type: e.resource.type,
        resource_id: e.resource.id,
        summary: e.summary,
        occurred_at: new Date(),
      },
    ],
    { session },
  );
  // Inside a transaction the row is not visible until commit; the relay loop picks it up.
  // The row as written goes along, so the relay need not read it back.
  if (!session?.inTransaction()) s.events.notify(doc!);
  return doc!;
}
