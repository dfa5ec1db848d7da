// The realtime client's reconnection and resume logic, against a fake WebSocket (every socket
// the client opens is kept, the test plays the server's side) and mocked timers: the URL and its
// `after`, the position kept across reconnections, duplicates dropped, `reset`, the backoff and
// its reset after a welcome, no reconnection for a key that is no longer valid or after
// `close()`, the client's pings and a silent server dropped, the async iterator.
//
//   npm test   (or: tsc -p . && node --test .test-build/local/test/realtime.test.js)
//
// tests/tests/client_package.rs runs it in CI.

import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';

import {
  RealtimeClient,
  type Disconnected,
  type RealtimeMessage,
  type RealtimeOptions,
} from '../src/index.js';

/** One socket the client opened: what it sent, and the server's side to play. */
class FakeSocket {
  static opened: FakeSocket[] = [];

  readonly sent: string[] = [];
  closedBy: { code?: number; reason?: string } | undefined;
  onopen: unknown = null;
  onmessage: unknown = null;
  onclose: unknown = null;
  onerror: unknown = null;

  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }

  send(data: string): void {
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    this.closedBy = { code, reason };
  }

  /** The server sends `message` as a text frame. */
  receive(message: object | string): void {
    const data = typeof message === 'string' ? message : JSON.stringify(message);
    (this.onmessage as (event: { data: unknown }) => void)({ data });
  }

  /** The connection closes with `code`. */
  drop(code: number, reason = ''): void {
    (this.onerror as (event: unknown) => void)({});
    (this.onclose as (event: { code: number; reason: string }) => void)({ code, reason });
  }

  /** The `after` query parameter of the URL it was opened with. */
  get after(): string | null {
    return new URL(this.url).searchParams.get('after');
  }
}

function last(): FakeSocket {
  const socket = FakeSocket.opened.at(-1);
  assert.ok(socket, 'a socket was opened');
  return socket;
}

function welcome(position: number, pingSecs = 30): object {
  return {
    type: 'welcome',
    account: 7,
    position,
    contentVersion: 3,
    maintenance: false,
    pingSecs,
  };
}

function event(position: number, id = position): object {
  return {
    type: 'event',
    position,
    event: { id, at: '2026-11-28T06:00:00Z', account: 7, kind: 'level_reached', level: id },
  };
}

/** A client over fake sockets, with mocked timers and the backoff's draw at its longest. */
function client(t: TestContext, options: Partial<RealtimeOptions> = {}): RealtimeClient {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  t.mock.method(Math, 'random', () => 1);
  const realtime = new RealtimeClient({
    baseUrl: 'https://play.example/',
    userKey: 'key-1',
    WebSocket: FakeSocket,
    initialDelayMs: 100,
    maxDelayMs: 1000,
    ...options,
  });
  t.after(() => realtime.close());
  return realtime;
}

function recorded(realtime: RealtimeClient): {
  messages: RealtimeMessage[];
  disconnects: Disconnected[];
} {
  const messages: RealtimeMessage[] = [];
  const disconnects: Disconnected[] = [];
  for (const type of ['welcome', 'event', 'reset', 'content'] as const) {
    realtime.on(type, (message) => messages.push(message));
  }
  realtime.on('disconnected', (ended) => disconnects.push(ended));
  return { messages, disconnects };
}

describe('RealtimeClient', () => {
  beforeEach(() => {
    FakeSocket.opened = [];
  });

  it('connects to the channel with the key, and without after starts at the head', (t) => {
    const realtime = client(t);
    assert.equal(FakeSocket.opened.length, 1);
    const url = new URL(last().url);
    assert.equal(url.protocol, 'wss:');
    assert.equal(url.host, 'play.example');
    assert.equal(url.pathname, '/api/realtime');
    assert.equal(url.searchParams.get('userKey'), 'key-1');
    assert.equal(last().after, null);
    assert.equal(realtime.state, 'connecting');
    last().receive(welcome(41));
    assert.equal(realtime.state, 'open');
    assert.equal(realtime.position, 41);
  });

  it('resumes after the last position it saw, and drops what it already saw', (t) => {
    const realtime = client(t);
    const { messages, disconnects } = recorded(realtime);
    last().receive(welcome(10));
    last().receive(event(11));
    last().receive(event(12));
    assert.equal(realtime.position, 12);

    last().drop(1001, 'server stopping');
    assert.deepEqual(disconnects, [
      { code: 1001, reason: 'server stopping', retryInMs: 100, failures: 0 },
    ]);
    assert.equal(realtime.state, 'waiting');
    t.mock.timers.tick(99);
    assert.equal(FakeSocket.opened.length, 1, 'not before the delay');
    t.mock.timers.tick(1);
    assert.equal(FakeSocket.opened.length, 2);
    assert.equal(last().after, '12');

    // The new node's welcome names its head; the client keeps its own position.
    last().receive(welcome(14));
    assert.equal(realtime.position, 12);
    last().receive(event(12));
    last().receive(event(13));
    last().receive(event(14));
    assert.deepEqual(
      messages.filter((message) => message.type === 'event').map((message) => message.position),
      [11, 12, 13, 14],
      'each event once, in order',
    );
    assert.equal(realtime.position, 14);
  });

  it('starts after a position a previous session kept', (t) => {
    const realtime = client(t, { baseUrl: 'http://127.0.0.1:8080', after: 5 });
    assert.equal(new URL(last().url).protocol, 'ws:');
    assert.equal(last().after, '5');
    last().receive(welcome(9));
    assert.equal(realtime.position, 5);
  });

  it('refuses an after that is not a position', () => {
    for (const after of [-1, 1.5, Number.NaN]) {
      assert.throws(
        () =>
          new RealtimeClient({ baseUrl: 'http://x', userKey: 'k', after, WebSocket: FakeSocket }),
        /^RangeError: after: /,
      );
    }
  });

  it('without a WebSocket says to pass one', () => {
    const global = Object.getOwnPropertyDescriptor(globalThis, 'WebSocket');
    Object.defineProperty(globalThis, 'WebSocket', { value: undefined, configurable: true });
    try {
      assert.throws(
        () => new RealtimeClient({ baseUrl: 'http://x', userKey: 'k' }),
        /^TypeError: WebSocket: .* from 'ws'/,
      );
    } finally {
      if (global) {
        Object.defineProperty(globalThis, 'WebSocket', global);
      } else {
        Reflect.deleteProperty(globalThis, 'WebSocket');
      }
    }
  });

  it('reports a reset and goes on after its position', (t) => {
    const realtime = client(t, { after: 3 });
    const resets: number[] = [];
    realtime.on('reset', (reset) => resets.push(reset.position));
    last().receive(welcome(500));
    last().receive({ type: 'reset', position: 480 });
    assert.deepEqual(resets, [480]);
    assert.equal(realtime.position, 480);
    last().receive(event(481));
    last().drop(4008, 'slow consumer');
    t.mock.timers.tick(100);
    assert.equal(last().after, '481');
  });

  it('backs off after each failed attempt, up to the longest delay; a welcome starts over', (t) => {
    const realtime = client(t);
    const { disconnects } = recorded(realtime);
    last().receive(welcome(1));
    last().drop(1006);
    const delays = [100];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      t.mock.timers.tick(delays.at(-1) ?? 0);
      last().drop(1006);
      delays.push(disconnects.at(-1)?.retryInMs ?? -1);
    }
    assert.deepEqual(
      disconnects.map((ended) => ended.retryInMs),
      [100, 200, 400, 800, 1000, 1000],
    );
    assert.deepEqual(
      disconnects.map((ended) => ended.failures),
      [0, 1, 2, 3, 4, 5],
    );
    assert.equal(FakeSocket.opened.length, 6);
    t.mock.timers.tick(1000);
    last().receive(welcome(1));
    last().drop(1000);
    assert.equal(disconnects.at(-1)?.retryInMs, 100, 'a welcome starts the backoff over');
  });

  it('draws each delay between its half and its whole', (t) => {
    const realtime = client(t);
    const { disconnects } = recorded(realtime);
    t.mock.method(Math, 'random', () => 0);
    last().drop(1006);
    assert.equal(disconnects[0]?.retryInMs, 100, 'half of the first failure’s 200');
  });

  it('counts a WebSocket constructor that throws on a reconnection as a failed attempt', (t) => {
    let refusals = 1;
    class Refusing extends FakeSocket {
      constructor(url: string) {
        if (FakeSocket.opened.length === 1 && refusals > 0) {
          refusals -= 1;
          throw new Error('no network');
        }
        super(url);
      }
    }
    const realtime = client(t, { WebSocket: Refusing });
    const { disconnects } = recorded(realtime);
    last().receive(welcome(1));
    last().drop(1006);
    t.mock.timers.tick(100);
    assert.deepEqual(disconnects.at(-1), {
      code: 1006,
      reason: 'no network',
      retryInMs: 200,
      failures: 1,
    });
    t.mock.timers.tick(200);
    assert.equal(FakeSocket.opened.length, 2);
    assert.equal(last().after, '1');
  });

  it('stops for good when the key is no longer valid', (t) => {
    const realtime = client(t);
    const { disconnects } = recorded(realtime);
    last().receive(welcome(1));
    last().drop(1008, 'key revoked');
    assert.equal(realtime.state, 'closed');
    assert.deepEqual(disconnects, [
      { code: 1008, reason: 'key revoked', retryInMs: null, failures: 0 },
    ]);
    t.mock.timers.tick(60_000);
    assert.equal(FakeSocket.opened.length, 1);
  });

  it('close() closes the socket, cancels a pending reconnection and is final', (t) => {
    const realtime = client(t);
    const { disconnects } = recorded(realtime);
    last().receive(welcome(1));
    realtime.close();
    assert.deepEqual(last().closedBy, { code: 1000, reason: 'closed by the client' });
    assert.equal(realtime.state, 'closed');
    assert.equal(disconnects.at(-1)?.retryInMs, null);
    last().drop(1000);
    t.mock.timers.tick(60_000);
    assert.equal(FakeSocket.opened.length, 1);
    assert.equal(disconnects.length, 1, 'the old socket reports nothing');
  });

  it('close() while waiting to reconnect cancels the reconnection', (t) => {
    const realtime = client(t);
    last().drop(1006);
    assert.equal(realtime.state, 'waiting');
    realtime.close();
    t.mock.timers.tick(60_000);
    assert.equal(FakeSocket.opened.length, 1, 'the pending reconnection never happens');
    assert.equal(realtime.state, 'closed');
  });

  it('pings every pingSecs and drops a server silent for two intervals', (t) => {
    const realtime = client(t);
    const { disconnects } = recorded(realtime);
    const socket = last();
    socket.receive(welcome(1, 20));
    t.mock.timers.tick(20_000);
    assert.deepEqual(socket.sent, ['{"type":"ping"}']);
    socket.receive({ type: 'pong' });
    t.mock.timers.tick(20_000);
    assert.equal(socket.sent.length, 2, 'heard from: a second ping');
    t.mock.timers.tick(20_000);
    assert.equal(socket.sent.length, 3, 'one silent interval: still pinging');
    assert.equal(disconnects.length, 0);
    t.mock.timers.tick(20_000);
    assert.equal(socket.closedBy?.code, 1000, 'two silent intervals: dropped');
    assert.deepEqual(disconnects, [
      { code: 1006, reason: 'the server stopped answering', retryInMs: 100, failures: 0 },
    ]);
    t.mock.timers.tick(100);
    assert.equal(FakeSocket.opened.length, 2);
    assert.equal(last().after, '1');
    socket.receive(event(2));
    assert.equal(realtime.position, 1, 'the dropped socket is no longer heard');
  });

  it('pings on its own interval when given one', (t) => {
    client(t, { pingSecs: 5 });
    last().receive(welcome(1, 30));
    t.mock.timers.tick(5_000);
    assert.equal(last().sent.length, 1);
  });

  it('ignores what it cannot read and pongs', (t) => {
    const realtime = client(t);
    const { messages } = recorded(realtime);
    last().receive(welcome(1));
    for (const frame of ['not json', '[1]', 'null', '{"type":"later"}', '{"type":"event"}']) {
      last().receive(frame);
    }
    last().receive({ type: 'event', position: -2, event: {} });
    last().receive({ type: 'pong' });
    last().receive({ type: 'content', version: 4, maintenance: true });
    assert.deepEqual(
      messages.map((message) => message.type),
      ['welcome', 'content'],
    );
    assert.equal(realtime.position, 1);
  });

  it('types the event payload by its kind', (t) => {
    const realtime = client(t);
    const levels: number[] = [];
    realtime.on('event', ({ event }) => {
      if (event.kind === 'level_reached') {
        levels.push(event.level);
      }
    });
    last().receive(welcome(1));
    last().receive(event(2, 6));
    assert.deepEqual(levels, [6]);
  });

  it('keeps going when a listener throws, and reports its error', (t) => {
    const realtime = client(t);
    const reported: (() => void)[] = [];
    t.mock.method(globalThis, 'queueMicrotask', (task: () => void) => reported.push(task));
    const seen: number[] = [];
    realtime.on('event', () => {
      throw new Error('the game’s bug');
    });
    realtime.on('event', (message) => seen.push(message.position));
    last().receive(welcome(1));
    last().receive(event(2));
    assert.deepEqual(seen, [2]);
    assert.equal(realtime.position, 2);
    assert.equal(reported.length, 1);
    assert.throws(() => reported[0]?.(), /the game’s bug/);
  });

  it('on() returns the function that stops the listener', (t) => {
    const realtime = client(t);
    const seen: number[] = [];
    const stop = realtime.on('event', (message) => seen.push(message.position));
    last().receive(welcome(1));
    last().receive(event(2));
    stop();
    last().receive(event(3));
    assert.deepEqual(seen, [2]);
  });

  it('iterates the messages in order across a reconnection and ends on close()', async (t) => {
    const realtime = client(t);
    const iterated: string[] = [];
    const done = (async () => {
      for await (const message of realtime) {
        iterated.push(`${message.type}:${'position' in message ? message.position : ''}`);
      }
    })();
    last().receive(welcome(1));
    last().receive(event(2));
    last().drop(1001);
    t.mock.timers.tick(100);
    last().receive(welcome(2));
    last().receive(event(3));
    last().receive({ type: 'reset', position: 9 });
    realtime.close();
    await done;
    assert.deepEqual(iterated, ['welcome:1', 'event:2', 'welcome:2', 'event:3', 'reset:9']);

    const after = realtime.messages();
    assert.deepEqual(await after.next(), { value: undefined, done: true });
  });

  it('an iterator the reader leaves stops receiving', async (t) => {
    const realtime = client(t);
    last().receive(welcome(1));
    const messages = realtime.messages();
    last().receive(event(2));
    const first = await messages.next();
    assert.equal(first.value?.type, 'event');
    await messages.return?.();
    last().receive(event(3));
    assert.deepEqual(await messages.next(), { value: undefined, done: true });
  });
});
