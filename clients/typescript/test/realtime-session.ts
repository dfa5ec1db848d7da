// The realtime channel through the package's `RealtimeClient` against a real server: a new
// player's purchase reaches the open channel as its event; with the channel closed the player
// opens the pack, and a new client resuming after the purchase's position receives the
// opening, and nothing before it.
//
//   node --experimental-websocket dist/test/realtime-session.js --base http://127.0.0.1:PORT
//
// (Node 20 has its standard `WebSocket` behind that flag; browsers and Node >= 22 have it.)
// Prints exactly one JSON line on standard output: {"ok":true,...} with the positions and
// kinds it saw (the Rust test, tests/tests/client.rs, checks them against the server's outbox),
// or {"ok":false,"error":...,"step":...} (then exits 1). Progress goes to standard error.

import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { parseArgs } from 'node:util';

import {
  RealtimeClient,
  createSafezoneClient,
  withUserKey,
  type ApiError,
  type EventMessage,
  type RealtimeMessage,
} from '../src/index.js';

const { values } = parseArgs({ options: { base: { type: 'string' } } });
const base = values.base ?? '';
const outcome: Record<string, unknown> = { ok: false, step: 'start' };
/** How long a message may take to come. */
const WAIT_MS = 15_000;

function step(name: string): void {
  outcome.step = name;
  process.stderr.write(`realtime-session: ${name}\n`);
}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
}

/** The body of a success, or a thrown error with the failure's envelope. */
function success<T>(answer: { data?: T; error?: ApiError | unknown; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(`HTTP ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

/** The channel's messages, read one at a time with a deadline. */
class Inbox {
  private readonly iterator: AsyncIterator<RealtimeMessage>;

  constructor(realtime: RealtimeClient) {
    this.iterator = realtime.messages();
  }

  async next(): Promise<RealtimeMessage> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no message within ${WAIT_MS} ms`)), WAIT_MS);
    });
    try {
      const next = await Promise.race([this.iterator.next(), deadline]);
      check(next.done !== true, 'the channel is still open');
      return next.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next event of `kind`, skipping the player's earlier events (a sign-in, a claim). */
  async event(kind: string, seen: string[]): Promise<EventMessage> {
    for (;;) {
      const message = await this.next();
      if (message.type === 'event') {
        seen.push(message.event.kind);
        if (message.event.kind === kind) {
          return message;
        }
      }
    }
  }
}

function connect(userKey: string, after?: number): RealtimeClient {
  check(typeof WebSocket === 'function', 'a standard WebSocket (--experimental-websocket)');
  return new RealtimeClient({ baseUrl: base, userKey, after, WebSocket });
}

async function play(): Promise<void> {
  check(base.startsWith('http'), '--base names the server');
  const safezone = createSafezoneClient(base);

  step('sign in a new device');
  const deviceId = `android-${randomUUID()}`;
  const signedIn = success(
    await safezone.POST('/api/validate/device/{deviceId}', { params: { path: { deviceId } } }),
  );
  const userKey = signedIn.user.key;
  safezone.use(withUserKey(userKey));
  outcome.key = userKey;

  step('claim the welcome reward');
  const claimed = success(
    await safezone.POST('/api/user/{userKey}/rewards/claim', {
      params: { path: { userKey }, query: { type: 'first' } },
    }),
  );
  const shop = success(await safezone.GET('/api/shop/available', {}));
  const chest = (shop.packs ?? []).find(
    (pack) => pack.can_purchase && pack.cost_gems === 0 && pack.cost_coins <= claimed.user.coins,
  );
  check(chest !== undefined, 'a chest the welcome coins pay for');

  step('open the realtime channel');
  const first = connect(userKey);
  const inbox = new Inbox(first);
  const welcome = await inbox.next();
  check(welcome.type === 'welcome', `a welcome first, not ${welcome.type}`);
  check(welcome.account === signedIn.user.id, 'the welcome names the player');
  outcome.account = welcome.account;

  step('buy a chest: its event comes on the channel');
  success(
    await safezone.POST('/api/user/{userKey}/buy', {
      params: { path: { userKey }, query: { packId: chest.id, quantity: 1 } },
    }),
  );
  const seenFirst: string[] = [];
  const purchase = await inbox.event('purchase', seenFirst);
  check(first.position === purchase.position, 'the client keeps the last position');
  outcome.purchasePosition = purchase.position;
  outcome.firstKinds = seenFirst;
  first.close();
  check(first.state === 'closed', 'closed for good');

  step('open the chest while no channel is open');
  success(
    await safezone.POST('/api/user/{userKey}/pack/open', {
      params: { path: { userKey }, query: { packId: chest.id } },
    }),
  );

  step('resume after the purchase: the opening comes, nothing before it');
  const resumed = connect(userKey, purchase.position);
  const later = new Inbox(resumed);
  const again = await later.next();
  check(again.type === 'welcome', `a welcome first, not ${again.type}`);
  const next = await later.next();
  check(next.type === 'event', `an event after the welcome, not ${next.type}`);
  check(next.event.kind === 'pack_opened', `the opening next, not ${next.event.kind}`);
  check(next.position > purchase.position, 'after the position resumed from');
  outcome.openedPosition = next.position;
  resumed.close();

  outcome.ok = true;
  outcome.step = 'done';
}

try {
  await play();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} catch (error) {
  outcome.error = error instanceof Error ? error.message : String(error);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = 1;
}
