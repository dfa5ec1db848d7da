// A game's first use of the installed package, run in a fresh folder where the packed tarball
// was installed with `npm install` (tests/tests/client_package.rs): imports the package by its
// name, checks its exports (and that its files are reachable only through them), signs in a new
// device and reads the account.
//
//   node consumer.mjs --base http://127.0.0.1:PORT
//
// Prints exactly one JSON line on standard output: {"ok":true,...} with what it saw, or
// {"ok":false,"error":...,"step":...} (then exits 1). Progress goes to standard error.

import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { parseArgs } from 'node:util';

import * as safezoneClient from '@safezone/client';

const { values } = parseArgs({ options: { base: { type: 'string' } } });
const outcome = { ok: false, step: 'start' };

function step(name) {
  outcome.step = name;
  process.stderr.write(`consumer: ${name}\n`);
}

function check(condition, what) {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
}

async function use() {
  step('the exports');
  outcome.exports = Object.keys(safezoneClient).sort();
  const { createSafezoneClient, withUserKey, RealtimeClient, CloseCode, parseServerMessage } =
    safezoneClient;
  check(typeof createSafezoneClient === 'function', 'createSafezoneClient');
  check(typeof withUserKey === 'function', 'withUserKey');
  check(typeof RealtimeClient === 'function', 'RealtimeClient');
  check(CloseCode.keyInvalid === 1008, 'CloseCode');
  check(parseServerMessage('{"type":"pong"}')?.type === 'pong', 'parseServerMessage');

  step('only the exports are reachable');
  const deep = await import('@safezone/client/dist/realtime.js').then(
    () => 'imported',
    (error) => error.code,
  );
  check(deep === 'ERR_PACKAGE_PATH_NOT_EXPORTED', `a deep import is refused, not ${deep}`);

  step('sign in a new device');
  const base = values.base ?? '';
  check(base.startsWith('http'), '--base names the server');
  const safezone = createSafezoneClient(base);
  const deviceId = `android-${randomUUID()}`;
  const signedIn = await safezone.POST('/api/validate/device/{deviceId}', {
    params: { path: { deviceId } },
  });
  check(signedIn.data?.firstLogin === true, `a first login: ${JSON.stringify(signedIn.error)}`);
  const key = signedIn.data.user.key;
  safezone.use(withUserKey(key));

  step('read the account');
  const account = await safezone.GET('/api/user/{userKey}', { params: { path: { userKey: key } } });
  check(account.data !== undefined, `the account: ${JSON.stringify(account.error)}`);
  check(account.data.user.id === signedIn.data.user.id, 'the same account');

  step('a refusal is the error envelope');
  const refused = await createSafezoneClient(base).GET('/api/user/{userKey}', {
    params: { path: { userKey: 'not-a-key' } },
  });
  check(refused.response.status === 401, `401, not ${refused.response.status}`);
  check(typeof refused.error?.code === 'string', 'an error code');

  Object.assign(outcome, {
    ok: true,
    step: 'done',
    key,
    accountId: account.data.user.id,
    coins: account.data.user.coins,
    refusedCode: refused.error.code,
  });
}

try {
  await use();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} catch (error) {
  outcome.ok = false;
  outcome.error = error instanceof Error ? error.message : String(error);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = 1;
}
