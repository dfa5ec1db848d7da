// A new player's first session, played through the generated client against a real server:
// device sign-in, the configuration, the account, the shop, the welcome reward (and its
// idempotent repeat), a chest bought and opened, a purchase refused for its price, a vote in the
// poll, the quests, the tracks and the live leaderboard. Type-checked against the generated
// types (`tsc`), so that a client that no longer fits the document fails to build.
//
//   node dist/test/first-session.js --base http://127.0.0.1:PORT
//
// Prints exactly one JSON line on standard output: {"ok":true,...} with what it saw (the
// Rust test, tests/tests/client.rs, checks it against the server), or {"ok":false,"error":...,
// "step":...} (then exits 1). Progress goes to standard error.

import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { parseArgs } from 'node:util';

import { createSafezoneClient, withUserKey, type ApiError } from '../src/index.js';

const { values } = parseArgs({ options: { base: { type: 'string' } } });
const base = values.base ?? '';
const outcome: Record<string, unknown> = { ok: false, step: 'start' };

function step(name: string): void {
  outcome.step = name;
  process.stderr.write(`first-session: ${name}\n`);
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

async function play(): Promise<void> {
  check(base.startsWith('http'), '--base names the server');
  const safezone = createSafezoneClient(base);

  step('sign in a new device');
  const deviceId = `ios-${randomUUID()}`;
  const signedIn = success(
    await safezone.POST('/api/validate/device/{deviceId}', {
      params: { path: { deviceId } },
    }),
  );
  check(signedIn.status === 'success', 'the envelope says success');
  check(signedIn.firstLogin, 'a first login');
  const userKey = signedIn.user.key;
  safezone.use(withUserKey(userKey));
  outcome.key = userKey;

  step('read the configuration');
  const config = success(
    await safezone.GET('/api/config', {
      params: { query: { platform: 'ios', version: '2.8.1', isPolledUpdate: false } },
    }),
  );
  check(config.config.update_required === false, 'no update required');

  step('read the account');
  const account = success(
    await safezone.GET('/api/user/{userKey}', { params: { path: { userKey } } }),
  );
  check(account.user.id === signedIn.user.id, 'the same account');
  check(!account.is_banned, 'not banned');

  step('read the shop');
  const shop = success(await safezone.GET('/api/shop/available', {}));
  const packs = shop.packs ?? [];
  check(packs.length > 0, 'the shop has packs');

  step('list the rewards');
  const rewards = success(
    await safezone.GET('/api/user/{userKey}/rewards', { params: { path: { userKey } } }),
  );
  const first = rewards.types.find((type) => type.name === 'first');
  check(first?.is_available === true, 'the welcome reward is claimable');

  step('claim the welcome reward');
  const claimKey = `welcome-${randomUUID()}`;
  const claim = () =>
    safezone.POST('/api/user/{userKey}/rewards/claim', {
      params: {
        path: { userKey },
        query: { type: 'first' },
        header: { 'Idempotency-Key': claimKey },
      },
    });
  const claimed = success(await claim());
  const { coins, gems } = claimed.user;
  check(coins > account.user.coins, 'the welcome reward gives coins');

  step('repeat the claim with its idempotency key');
  const repeat = await claim();
  check(repeat.response.headers.get('Idempotent-Replayed') === 'true', 'a replayed answer');
  check(success(repeat).user.coins === coins, 'nothing granted twice');

  step('buy a chest');
  const chest = packs.find(
    (pack) => pack.can_purchase && pack.cost_gems === 0 && pack.cost_coins <= coins,
  );
  check(chest !== undefined, 'a chest the welcome coins pay for');
  const bought = success(
    await safezone.POST('/api/user/{userKey}/buy', {
      params: { path: { userKey }, query: { packId: chest.id, quantity: 1 } },
    }),
  );
  check(bought.user.coins === coins - chest.cost_coins, 'the price is paid');
  const owned = bought.user.packs.find((pack) => pack.pack_id === chest.id)?.quantity ?? 0;
  check(owned >= 1, 'the chest is owned');

  step('open the chest');
  const opened = success(
    await safezone.POST('/api/user/{userKey}/pack/open', {
      params: { path: { userKey }, query: { packId: chest.id } },
    }),
  );
  check((opened.rewards ?? []).length > 0, 'the chest drops something');

  step('a purchase the account cannot pay for');
  const most = 100;
  check(opened.user.coins < most * chest.cost_coins, 'too dear for the account');
  const refused = await safezone.POST('/api/user/{userKey}/buy', {
    params: { path: { userKey }, query: { packId: chest.id, quantity: most } },
  });
  check(refused.response.status === 402, `402, not ${refused.response.status}`);
  check(refused.error?.code === 'insufficient_funds', 'insufficient_funds');

  step('vote in the poll');
  const polls = success(await safezone.GET('/api/poll/available', {}));
  const poll = polls.poll[0];
  const option = poll?.options[0];
  check(poll !== undefined && option !== undefined, 'a poll with options');
  success(
    await safezone.POST('/api/poll/vote/{pollId}', {
      params: { path: { pollId: poll.id }, query: { optionId: option.id } },
    }),
  );

  step('read the quests and the tracks');
  const quests = success(await safezone.GET('/api/quest/available', {}));
  check(quests.quests.length > 0, 'quests run');
  const tracks = success(await safezone.GET('/api/reward/tracks', {}));
  check(tracks.tracks.length >= 2, 'a free track and a pass');

  step('read the live leaderboard');
  const board = success(
    await safezone.GET('/api/leaderboard/live', {
      params: { query: { mode: 'solo', time: '24h', category: 'wins' } },
    }),
  );
  check(Array.isArray(board.players), 'the board has rows');
  check(board.user == null, 'a new player is not ranked yet');

  step('read the account again');
  const after = success(
    await safezone.GET('/api/user/{userKey}', { params: { path: { userKey } } }),
  );
  Object.assign(outcome, {
    ok: true,
    step: 'done',
    accountId: after.user.id,
    coins: after.user.coins,
    gems: after.user.gems,
    welcomeCoins: coins - account.user.coins,
    welcomeGems: gems - account.user.gems,
    chest: chest.id,
    poll: poll.id,
  });
}

try {
  await play();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} catch (error) {
  outcome.ok = false;
  outcome.error = error instanceof Error ? error.message : String(error);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = 1;
}
