/**
 * The realtime channel's client: one WebSocket to `GET /api/realtime` that keeps the last relay
 * position it saw, reconnects with backoff resuming after it (`after=<position>`), reports a
 * `reset` so that the game reloads its state, pings the server on its own timer (browsers give
 * no control over protocol pings) and drops a connection the server stopped answering.
 *
 * ```ts
 * const realtime = new RealtimeClient({ baseUrl: 'https://play.example', userKey });
 * realtime.on('event', ({ event }) => {
 *   if (event.kind === 'purchase') showGranted(event.granted);
 * });
 * realtime.on('reset', () => reloadAccount());
 * // or: for await (const message of realtime) { ... }
 * realtime.close();
 * ```
 */
import { AsyncQueue } from './async-queue.js';
import {
  CloseCode,
  PING,
  parseServerMessage,
  type ContentMessage,
  type EventMessage,
  type RealtimeMessage,
  type ResetMessage,
  type ServerMessage,
  type WelcomeMessage,
} from './realtime-protocol.js';

/**
 * What the client needs of a WebSocket: the standard `WebSocket` of browsers and Node >= 22,
 * and the `ws` package's, fit it.
 */
export interface WebSocketLike {
  /** Sends a text frame. */
  send(data: string): void;
  /** Closes the connection. */
  close(code?: number, reason?: string): void;
  /** Set by the client: called when the connection opened. */
  onopen: unknown;
  /** Set by the client: called with each message (`{ data }`). */
  onmessage: unknown;
  /** Set by the client: called when the connection closed (`{ code, reason }`). */
  onclose: unknown;
  /** Set by the client: called on an error (a close follows). */
  onerror: unknown;
}

/** A WebSocket constructor: `WebSocket`, or `WebSocket` from the `ws` package on Node 20. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** How a [`RealtimeClient`] connects. */
export interface RealtimeOptions {
  /** The server, as for `createSafezoneClient` (`https://play.example`): `wss://` follows. */
  baseUrl: string;
  /** The player's user key (sent as the `userKey` query parameter, as browsers must). */
  userKey: string;
  /** Resume after this relay position (one a previous session kept); else start at the head. */
  after?: number;
  /** The WebSocket constructor; defaults to the global `WebSocket` (browsers, Node >= 22). */
  WebSocket?: WebSocketConstructor;
  /**
   * The delay before reconnecting after a drop in milliseconds (500), doubled after each attempt
   * that fails; each delay is drawn between its half and its whole.
   */
  initialDelayMs?: number;
  /** The longest delay between reconnections in milliseconds (30,000). */
  maxDelayMs?: number;
  /** Seconds between the client's pings; defaults to the server's `pingSecs`. */
  pingSecs?: number;
}

/** A connection that ended. */
export interface Disconnected {
  /** The close code (1006 when the connection failed or went silent). */
  code: number;
  /** The close reason. */
  reason: string;
  /** Milliseconds until the next attempt, or `null` when the client stopped for good. */
  retryInMs: number | null;
  /** The attempts in a row that ended before the server's welcome, this one included. */
  failures: number;
}

/** What each `on(type, ...)` listener receives. */
export interface RealtimeEvents {
  /** A connection's first message (each reconnection too). */
  welcome: WelcomeMessage;
  /** One of the player's domain events, each once, in order. */
  event: EventMessage;
  /** Events were lost to retention: reload the player's state. */
  reset: ResetMessage;
  /** Live content was published. */
  content: ContentMessage;
  /** A connection ended; `retryInMs` says whether and when the client reconnects. */
  disconnected: Disconnected;
}

/** Where the client is: connecting, connected (welcomed), waiting to reconnect, or closed. */
export type RealtimeState = 'connecting' | 'open' | 'waiting' | 'closed';

type Listener<Type extends keyof RealtimeEvents> = (value: RealtimeEvents[Type]) => void;

const DEFAULT_INITIAL_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 30_000;
/** The WebSocket scheme of each HTTP scheme. */
const WEBSOCKET_SCHEMES: Record<string, string> = { 'https:': 'wss:', 'http:': 'ws:' };
/** The close code the client reports for a connection that failed or went silent. */
const ABNORMAL = 1006;

/**
 * The realtime channel of one player: connects at once and until `close()`, reconnecting after
 * every drop but a key that is no longer valid (close code 1008).
 */
export class RealtimeClient implements AsyncIterable<RealtimeMessage> {
  private readonly options: RealtimeOptions;
  private readonly WebSocket: WebSocketConstructor;
  private readonly listeners = new Map<keyof RealtimeEvents, Set<Listener<never>>>();
  private readonly queues = new Set<AsyncQueue<RealtimeMessage>>();
  private socket: WebSocketLike | undefined;
  private lastPosition: number | undefined;
  private failures = 0;
  private currentState: RealtimeState = 'connecting';
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private heard = false;
  private silentIntervals = 0;

  /** Connects to the channel of the player whose key `options.userKey` is. */
  constructor(options: RealtimeOptions) {
    const { after } = options;
    if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) {
      throw new RangeError(`after: a relay position is an integer >= 0, not ${after}`);
    }
    const constructor =
      options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (constructor === undefined) {
      throw new TypeError(
        'WebSocket: this runtime has no global WebSocket (Node 20): pass one, e.g. ' +
          "`new RealtimeClient({ ..., WebSocket })` with `import WebSocket from 'ws'`",
      );
    }
    this.options = options;
    this.WebSocket = constructor;
    this.lastPosition = after;
    this.connect();
  }

  /** The last relay position seen: keep it to resume a later session with `after`. */
  get position(): number | undefined {
    return this.lastPosition;
  }

  /** Where the client is. */
  get state(): RealtimeState {
    return this.currentState;
  }

  /** Calls `listener` for each `type`; returns the function that stops it. */
  on<Type extends keyof RealtimeEvents>(type: Type, listener: Listener<Type>): () => void {
    let set = this.listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener as Listener<never>);
    return () => {
      set.delete(listener as Listener<never>);
    };
  }

  /**
   * The messages from now on (welcome, event, reset, content), in order, until `close()` or a
   * key that is no longer valid.
   */
  messages(): AsyncIterableIterator<RealtimeMessage> {
    const queue: AsyncQueue<RealtimeMessage> = new AsyncQueue(() => this.queues.delete(queue));
    if (this.currentState === 'closed') {
      queue.end();
    } else {
      this.queues.add(queue);
    }
    return queue;
  }

  /** `for await (const message of realtime)`: the same as `messages()`. */
  [Symbol.asyncIterator](): AsyncIterableIterator<RealtimeMessage> {
    return this.messages();
  }

  /** Closes the channel for good (code 1000); the iterators end. */
  close(): void {
    if (this.currentState === 'closed') {
      return;
    }
    const socket = this.socket;
    this.forget();
    socket?.close(CloseCode.normal, 'closed by the client');
    this.stop({ code: CloseCode.normal, reason: 'closed by the client' });
  }

  private connect(): void {
    this.retryTimer = undefined;
    this.currentState = 'connecting';
    const socket = new this.WebSocket(this.url());
    this.socket = socket;
    socket.onmessage = (message: { data: unknown }) => {
      if (socket === this.socket && typeof message.data === 'string') {
        this.receive(message.data);
      }
    };
    socket.onclose = (closed: { code?: number; reason?: string }) => {
      if (socket === this.socket) {
        this.ended(closed.code ?? ABNORMAL, closed.reason ?? '');
      }
    };
    socket.onerror = () => {};
  }

  /** Connects again; a WebSocket constructor that throws counts as a failed attempt. */
  private reconnect(): void {
    try {
      this.connect();
    } catch (error) {
      this.ended(ABNORMAL, error instanceof Error ? error.message : String(error));
    }
  }

  private url(): string {
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, '')}/api/realtime`);
    url.protocol = WEBSOCKET_SCHEMES[url.protocol] ?? url.protocol;
    url.searchParams.set('userKey', this.options.userKey);
    if (this.lastPosition !== undefined) {
      url.searchParams.set('after', String(this.lastPosition));
    }
    return url.toString();
  }

  private receive(text: string): void {
    this.heard = true;
    const message = parseServerMessage(text);
    if (message === undefined) {
      return;
    }
    if (this.follow(message)) {
      this.deliver(message);
    }
  }

  /** Moves the position and the state by `message`; false when it is not to be delivered. */
  private follow(message: ServerMessage): message is RealtimeMessage {
    switch (message.type) {
      case 'welcome':
        this.failures = 0;
        this.currentState = 'open';
        this.lastPosition ??= message.position;
        this.startPinging(this.options.pingSecs ?? message.pingSecs);
        return true;
      case 'event':
        if (this.lastPosition !== undefined && message.position <= this.lastPosition) {
          return false;
        }
        this.lastPosition = message.position;
        return true;
      case 'reset':
        this.lastPosition = message.position;
        return true;
      case 'content':
        return true;
      case 'pong':
        return false;
    }
  }

  private deliver(message: RealtimeMessage): void {
    for (const queue of this.queues) {
      queue.push(message);
    }
    this.emit(message.type, message as RealtimeEvents[typeof message.type]);
  }

  private emit<Type extends keyof RealtimeEvents>(type: Type, value: RealtimeEvents[Type]): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        (listener as Listener<Type>)(value);
      } catch (error) {
        // A listener's failure is its own: the client goes on, and the error is reported.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  private startPinging(seconds: number): void {
    this.stopPinging();
    this.heard = false;
    this.silentIntervals = 0;
    this.pingTimer = setInterval(() => this.pingTick(), Math.max(seconds, 1) * 1000);
  }

  private pingTick(): void {
    this.silentIntervals = this.heard ? 0 : this.silentIntervals + 1;
    this.heard = false;
    if (this.silentIntervals >= 2) {
      const socket = this.socket;
      this.forget();
      socket?.close(CloseCode.normal, 'the server stopped answering');
      this.ended(ABNORMAL, 'the server stopped answering');
      return;
    }
    try {
      this.socket?.send(PING);
    } catch {
      // A socket that cannot send is closing: its close event follows.
    }
  }

  private stopPinging(): void {
    if (this.pingTimer !== undefined) {
      clearInterval(this.pingTimer);
      this.pingTimer = undefined;
    }
  }

  /** Detaches the current socket: nothing it does later reaches the client. */
  private forget(): void {
    this.stopPinging();
    this.socket = undefined;
  }

  /** The current connection ended with `code`: reconnect after a delay, or stop. */
  private ended(code: number, reason: string): void {
    this.forget();
    if (code === CloseCode.keyInvalid) {
      this.stop({ code, reason });
      return;
    }
    const failures = this.currentState === 'open' ? 0 : this.failures + 1;
    this.failures = failures;
    const initial = this.options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
    const most = this.options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    const delay = Math.min(most, initial * 2 ** Math.min(failures, 30));
    // Between half the delay and the whole of it, so that players dropped together come back
    // spread out.
    const retryInMs = Math.round(delay / 2 + (Math.random() * delay) / 2);
    this.currentState = 'waiting';
    this.retryTimer = setTimeout(() => this.reconnect(), retryInMs);
    this.emit('disconnected', { code, reason, retryInMs, failures });
  }

  /** Stops for good: no reconnection, the iterators end. */
  private stop(ended: Omit<Disconnected, 'retryInMs' | 'failures'>): void {
    if (this.retryTimer !== undefined) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    const failures = this.currentState === 'open' ? 0 : this.failures;
    this.currentState = 'closed';
    for (const queue of [...this.queues]) {
      queue.end();
    }
    this.emit('disconnected', { ...ended, retryInMs: null, failures });
  }
}
