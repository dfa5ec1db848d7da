/**
 * A typed client for the Safezone game backend: `openapi-fetch` over the types that
 * `openapi-typescript` generates from the server's OpenAPI document (`schema.d.ts`, written by
 * `generate.sh`; never edit it by hand).
 *
 * ```ts
 * const safezone = createSafezoneClient('https://play.example');
 * const { data, error } = await safezone.POST('/api/validate/device/{deviceId}', {
 *   params: { path: { deviceId: 'android-1234' } },
 * });
 * if (data) safezone.use(withUserKey(data.user.key));
 * ```
 *
 * The realtime channel's client (`RealtimeClient`, `realtime.ts`) and the domain events it
 * delivers (`events.ts`) are exported here too.
 */
import createClient, { type ClientOptions, type Middleware } from 'openapi-fetch';

import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export type {
  Currency,
  DomainEvent,
  EventKind,
  EventOf,
  EventPayload,
  Granted,
  MatchPlayer,
  Price,
} from './events.js';
export {
  CloseCode,
  parseServerMessage,
  type ContentMessage,
  type EventMessage,
  type PongMessage,
  type RealtimeMessage,
  type ResetMessage,
  type ServerMessage,
  type WelcomeMessage,
} from './realtime-protocol.js';
export {
  RealtimeClient,
  type Disconnected,
  type RealtimeEvents,
  type RealtimeOptions,
  type RealtimeState,
  type WebSocketConstructor,
  type WebSocketLike,
} from './realtime.js';

/** The client of one Safezone server. */
export type SafezoneClient = ReturnType<typeof createSafezoneClient>;

/** A schema of the document by name: `Schema<'ApiUser'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The error envelope every failure answers: `{status: "error", code, message}`. */
export type ApiError = Schema<'ErrorBody'>;

/** A client of the Safezone server at `baseUrl` (`https://play.example`, no trailing slash). */
export function createSafezoneClient(
  baseUrl: string,
  options: Omit<ClientOptions, 'baseUrl'> = {},
) {
  return createClient<paths>({ ...options, baseUrl });
}

/**
 * Sends `key` as `Authorization: Bearer` on every request: the operations whose path has no
 * `{userKey}` (configuration, polls, quests, tracks, leaderboards) then answer for the caller.
 */
export function withUserKey(key: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${key}`);
      return request;
    },
  };
}
