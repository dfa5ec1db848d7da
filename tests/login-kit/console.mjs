// The operator console in a real browser: headless Chromium driven by playwright-core.
//
//   node console.mjs --console http://127.0.0.1:PORT/operator/console --full SECRET \
//                    --read SECRET --friend-code 'Name#0001' --reason TEXT \
//                    --poll-closes 2026-11-24T12:00 [--timeout-ms 30000]
//
// With the full token (its holder is `--full-name`, default alice): signs in on the sign-in
// page, finds the player by friend code, refunds 7 gems with `--reason`, sees the ledger row
// (newest first) and the flash message, finds the audit row on the audit page (filtered by
// action), follows it back to the player and bans them, opens the polls, tournaments and
// content pages, creates a poll closing at `--poll-closes` (typed in its `datetime-local`
// input, UTC), then signs out. With the read-only
// token: signs in, finds the player, checks that no form that changes anything is shown,
// then forges each write by adding a form to the page (with the page's form token): each is
// refused by the API (`operator_read_only`), and a form without the token is refused by the
// console (403).
//
// Fails on any dialog (alert, confirm, prompt), any content-policy violation or console
// error, and any request that leaves the console's origin.
//
// Prints exactly one JSON line on standard output: {"ok":true,...} with what it saw, or
// {"ok":false,"error":...,"step":...} (then exits 1). Progress goes to standard error.

import process from 'node:process';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    console: { type: 'string' },
    full: { type: 'string' },
    'full-name': { type: 'string', default: 'alice' },
    read: { type: 'string' },
    'read-name': { type: 'string', default: 'bob' },
    'friend-code': { type: 'string' },
    reason: { type: 'string', default: 'ticket 77: double charge' },
    'poll-closes': { type: 'string' },
    'timeout-ms': { type: 'string', default: '30000' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});

const timeout = Number(values['timeout-ms']);
const outcome = { ok: false, step: 'start', problems: [] };
let browser;

function log(text) {
  process.stderr.write(`console: ${text}\n`);
}

function check(condition, what) {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
}

async function text(page, selector) {
  return (await page.locator(selector).first().innerText({ timeout })).trim();
}

// Submits the form `formSelector` by its submit button and waits for the next page.
async function submit(page, formSelector) {
  await Promise.all([
    page.waitForNavigation({ timeout }),
    page.click(`${formSelector} button[type="submit"]`),
  ]);
}

async function signIn(page, base, secret, name, role) {
  outcome.step = `sign in as ${name}`;
  await page.goto(`${base}/`, { timeout });
  check(page.url() === `${base}/sign-in`, `an anonymous visit lands on the sign-in page (${page.url()})`);
  await page.fill('#secret', secret);
  await submit(page, '#sign-in');
  check(page.url() === `${base}/`, `signed in, the console's first page (${page.url()})`);
  check(await text(page, '#operator-name') === name, `the page names ${name}`);
  check(await text(page, '#operator-role') === role, `the page says ${role}`);
  check((await text(page, '#flash')).startsWith(`Signed in as ${name}`), 'the sign-in message');
}

async function findPlayer(page, code) {
  outcome.step = 'find the player by friend code';
  await page.fill('#friendCode', code);
  await submit(page, '#find-by-code');
  check(await text(page, '#player-code') === code, 'the player page of the friend code');
}

async function asFullToken(page, base) {
  const code = values['friend-code'];
  const { reason } = values;
  await signIn(page, base, values.full, values['full-name'], 'full access');
  await findPlayer(page, code);
  outcome.accountId = await text(page, '#account-id');
  outcome.gemsBefore = await text(page, '#account-gems');

  outcome.step = 'the stylesheet applies';
  const background = await page.evaluate(
    () => getComputedStyle(document.querySelector('header.top')).backgroundColor,
  );
  check(background !== 'rgba(0, 0, 0, 0)', `the console's stylesheet is loaded (${background})`);

  outcome.step = 'refund';
  await page.selectOption('#refund-currency', 'gems');
  await page.fill('#refund-amount', '7');
  await page.fill('#refund-reason', reason);
  await submit(page, '#refund');
  outcome.refundFlash = await text(page, '#flash');
  check(outcome.refundFlash.startsWith('Refund: done'), `the refund is done (${outcome.refundFlash})`);
  outcome.gemsAfter = await text(page, '#account-gems');
  const firstLedgerRow = page.locator('#ledger tbody tr').first();
  outcome.ledgerRow = await firstLedgerRow.locator('td').allInnerTexts();
  check(outcome.ledgerRow.includes(reason), `the newest ledger row has the reason (${outcome.ledgerRow})`);
  check(outcome.ledgerRow.includes('+7') && outcome.ledgerRow.includes('gems'), 'the row is +7 gems');
  check(outcome.ledgerRow.includes(`operator:${values['full-name']}:refund`), 'the row names the token');

  outcome.step = 'the audit row';
  await Promise.all([page.waitForNavigation({ timeout }), page.click('nav >> text=Audit')]);
  await page.fill('#action', 'refund');
  await submit(page, '#audit-filters');
  const auditRows = page.locator('#audit tbody tr');
  check(await auditRows.count() === 1, 'one refund in the audit');
  outcome.auditRow = await auditRows.first().locator('td').allInnerTexts();
  check(outcome.auditRow.includes(values['full-name']), 'the audit row names the token');
  check(outcome.auditRow.includes('refund') && outcome.auditRow.includes(reason), 'the refund with its reason');
  check(outcome.auditRow.includes('done'), 'the refund was done');
  check(outcome.auditRow.includes(`account:${outcome.accountId}`), 'on the account');

  outcome.step = 'ban';
  await Promise.all([
    page.waitForNavigation({ timeout }),
    page.click(`#audit a:text-is("account:${outcome.accountId}")`),
  ]);
  check(await text(page, '#player-code') === code, 'the audit links to the player');
  await page.fill('#ban-reason', 'cheating, report 7');
  await submit(page, '#ban');
  outcome.banFlash = await text(page, '#flash');
  check(outcome.banFlash.startsWith('Ban change: done'), `the ban is done (${outcome.banFlash})`);
  check(await text(page, '#account-banned') === 'banned', 'the account shows banned');
  check(await page.locator('#unban').count() === 1, 'the ban form became the unban form');

  outcome.step = 'the community and content pages';
  for (const [path, heading] of [['/polls', 'Polls'], ['/tournaments', 'Tournaments'], ['/content', 'Content']]) {
    const response = await page.goto(`${base}${path}`, { timeout });
    check(response.status() === 200, `${path} answers 200 (${response.status()})`);
    check(await text(page, 'h1') === heading, `${path} shows its heading`);
  }

  outcome.step = 'a poll through the datetime-local input';
  await page.goto(`${base}/polls`, { timeout });
  await page.fill('#question', 'Next map?');
  await page.fill('input[name="option_name_1"]', 'Desert');
  await page.fill('input[name="option_name_2"]', 'Jungle');
  const closesAt = values['poll-closes'];
  await page.fill('#closes', closesAt);
  await page.fill('#poll-reason', 'weekly poll');
  await submit(page, '#create-poll');
  outcome.pollFlash = await text(page, '#flash');
  check(outcome.pollFlash.startsWith('Poll creation: done'), `the poll is created (${outcome.pollFlash})`);
  const pollRow = await text(page, '#polls tbody tr');
  check(pollRow.includes('Next map?') && pollRow.includes(`${closesAt.replace('T', ' ')} UTC`), `listed, closing in UTC (${pollRow})`);
  const closesTitle = await page.locator('#polls tbody tr time').nth(1).getAttribute('title');
  check(closesTitle === `${closesAt}:00Z`, `the exact closing time in its title (${closesTitle})`);

  outcome.step = 'sign out';
  await Promise.all([page.waitForNavigation({ timeout }), page.click('#sign-out')]);
  check(page.url() === `${base}/sign-in`, 'signed out to the sign-in page');
  await page.goto(`${base}/status`, { timeout });
  check(page.url() === `${base}/sign-in`, 'signed out: pages need a sign-in again');
}

// Adds a form posting `fields` to `action` to the page and submits it, as someone editing the
// page would; answers the page shown after it.
async function forge(page, action, fields) {
  await Promise.all([
    page.waitForNavigation({ timeout }),
    page.evaluate(({ action: target, fields: given }) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = target;
      for (const [name, value] of Object.entries(given)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    }, { action, fields }),
  ]);
}

async function asReadOnlyToken(page, base) {
  await signIn(page, base, values.read, values['read-name'], 'read-only');
  await findPlayer(page, values['friend-code']);
  outcome.step = 'no write form for a read-only token';
  const hidden = {};
  for (const selector of ['#refund', '#grant', '#remove', '#ban', '#unban', '#revoke-keys',
    '#remove-results', '#delete-link', '#write-forms']) {
    hidden[selector] = await page.locator(selector).count();
  }
  outcome.readOnlyForms = hidden;
  check(Object.values(hidden).every((count) => count === 0), `no write form (${JSON.stringify(hidden)})`);
  check(await page.locator('#read-only-note').isVisible(), 'the page says the token is read-only');

  outcome.step = 'forged writes';
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  const player = `${base}/players/${outcome.accountId}`;
  const writes = {
    grant: { coins: '5', reason: 'forged' },
    refund: { currency: 'coins', amount: '5', reason: 'forged' },
    remove: { gems: '1', reason: 'forged' },
    ban: { banned: 'false', reason: 'forged' },
    'revoke-keys': { reason: 'forged' },
  };
  outcome.forged = {};
  for (const [action, fields] of Object.entries(writes)) {
    await forge(page, `${player}/${action}`, { ...fields, csrf });
    const flash = await text(page, '#flash');
    outcome.forged[action] = flash;
    check(flash.includes('refused') && flash.includes('(operator_read_only)'),
      `${action} refused by the API (${flash})`);
  }
  check(await text(page, '#account-banned') === 'banned', 'still banned');
  check(await text(page, '#account-gems') === outcome.gemsAfter, 'the gems unchanged');

  outcome.step = 'a form without its token';
  await forge(page, `${player}/refund`, writes.refund);
  outcome.withoutToken = await text(page, '#error');
  check(outcome.withoutToken.includes('token is missing'), `refused by the console (${outcome.withoutToken})`);
}

async function main() {
  check(values.console && values.full && values.read && values['friend-code'] && values['poll-closes'],
    '--console, --full, --read, --friend-code and --poll-closes are required');
  const base = values.console.replace(/\/$/, '');
  const origin = new URL(base).origin;

  outcome.step = 'launch chromium';
  browser = await chromium.launch({
    executablePath: values.chromium,
    args: ['--no-sandbox'],
    headless: true,
    timeout,
  });
  const context = await browser.newContext();
  context.setDefaultTimeout(timeout);
  context.on('dialog', (dialog) => {
    outcome.problems.push(`a ${dialog.type()} dialog: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  context.on('request', (request) => {
    if (!request.url().startsWith(origin)) {
      outcome.problems.push(`a request outside the console: ${request.url()}`);
    }
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    // The one error status expected is the console's 403 to the form without its token.
    const expected = outcome.step === 'a form without its token'
      && message.text().includes('status of 403');
    if (message.type() === 'error' && !expected) {
      outcome.problems.push(`console error at ${message.location().url}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => outcome.problems.push(`page error: ${error.message}`));

  await asFullToken(page, base);
  await asReadOnlyToken(page, base);
  check(outcome.problems.length === 0, `no dialog, policy violation or outside request (${outcome.problems})`);
  outcome.ok = true;
  outcome.step = 'done';
}

try {
  await main();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = 0;
} catch (error) {
  outcome.error = error instanceof Error ? error.message : String(error);
  log(`failed at ${outcome.step}: ${outcome.error}`);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
}
