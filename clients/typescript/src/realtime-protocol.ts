/**
 * The realtime channel's wire protocol (`GET /api/realtime`, a WebSocket): the messages the
 * server sends, each a text frame holding one JSON object tagged by `type`, the one message a
 * client sends, and the close codes.
 *
 * Written by hand from the protocol the server implements; they can be generated once the server
 * publishes an AsyncAPI document of the channel.
 */
import type { DomainEvent } from './events.js';

/** The first message of every connection, once. */
export interface WelcomeMessage {
  type: 'welcome';
  /** The account the key belongs to. */
  account: number;
  /** The relay position the stream starts after (the head without `after`). */
  position: number;
  /** The live content's version. */
  contentVersion: number;
  /** Whether the game is in maintenance. */
  maintenance: boolean;
  /** Seconds between the server's pings; a client silent for two of them is closed. */
  pingSecs: number;
}

/** One of the player's domain events, at its relay position. */
export interface EventMessage {
  type: 'event';
  /** The event's relay position: resume with `after` = the last one seen. */
  position: number;
  /** The event, as the webhooks deliver it. */
  event: DomainEvent;
}

/**
 * The events after the client's `after` are no longer kept: the client reloads its state; the
 * stream goes on after `position`.
 */
export interface ResetMessage {
  type: 'reset';
  /** The position the stream goes on after. */
  position: number;
}

/** Live content was published (sent to every player). */
export interface ContentMessage {
  type: 'content';
  /** The live content's new version. */
  version: number;
  /** Whether the game is in maintenance. */
  maintenance: boolean;
}

/** The answer to a client's `{"type":"ping"}`. */
export interface PongMessage {
  type: 'pong';
}

/** Every message the server sends. */
export type ServerMessage =
  | WelcomeMessage
  | EventMessage
  | ResetMessage
  | ContentMessage
  | PongMessage;

/** The messages a game acts on: every server message but `pong`. */
export type RealtimeMessage = Exclude<ServerMessage, PongMessage>;

/** The one message a client sends; the server ignores anything else. */
export const PING = JSON.stringify({ type: 'ping' });

/** The close codes the server uses. */
export const CloseCode = {
  /** Closed normally. */
  normal: 1000,
  /** The server is stopping: another node takes the reconnection. */
  serverStopping: 1001,
  /** The key is no longer valid (revoked, banned, deleted): sign in again. */
  keyInvalid: 1008,
  /** The client fell too far behind: it resumes from its position. */
  slowConsumer: 4008,
  /** The client was silent for two ping intervals. */
  idle: 4000,
} as const;

/**
 * A text frame read as a server message, or `undefined` for anything else (not JSON, an unknown
 * `type` from a newer server, a message missing a field the client relies on).
 */
export function parseServerMessage(text: string): ServerMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const message = value as Record<string, unknown>;
  const positioned = Number.isSafeInteger(message.position) && (message.position as number) >= 0;
  switch (message.type) {
    case 'welcome':
      return positioned && typeof message.pingSecs === 'number'
        ? (message as unknown as WelcomeMessage)
        : undefined;
    case 'event':
      return positioned && typeof message.event === 'object' && message.event !== null
        ? (message as unknown as EventMessage)
        : undefined;
    case 'reset':
      return positioned ? (message as unknown as ResetMessage) : undefined;
    case 'content':
      return typeof message.version === 'number'
        ? (message as unknown as ContentMessage)
        : undefined;
    case 'pong':
      return { type: 'pong' };
    default:
      return undefined;
  }
}
