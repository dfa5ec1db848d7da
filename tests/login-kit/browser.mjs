// A real browser for Safezone's sign-in tests: headless Chromium driven by playwright-core.
//
//   node browser.mjs --safezone http://127.0.0.1:PORT --mode web --web-port WEBPORT \
//                    --csrf CSRF --login NAME [--provider idpone] [--timeout-ms 30000]
//   node browser.mjs --safezone http://127.0.0.1:PORT --mode windows[-explicit] --csrf CSRF \
//                    --login NAME
//
// web: serves a test page on http://127.0.0.1:WEBPORT (the web origin Safezone is configured
//   to post to). The page's "Sign in" button opens {safezone}/user/login/{provider}?csrf=CSRF in
//   a popup and listens for `message` events: it keeps only those whose origin is Safezone's,
//   parses the JSON string, and accepts `onLoginSuccess` with the same csrf. It then stores
//   data.user.key in the `userKey` cookie with `document.cookie` (cookies are scoped by host,
//   not by port, so a cookie the page on 127.0.0.1:WEBPORT writes with Path=/ is also a cookie
//   of Safezone's origin 127.0.0.1:PORT: the web client's own way, no Playwright cookie API).
//   The script drives the provider's login form (and its consent form when shown) in the
//   popup, waits for the message, checks through the browser context that Safezone's origin
//   now has the userKey cookie, loads {safezone}/api/user/{key} in the page (Safezone serves
//   no CORS, so a navigation rather than fetch) and checks the user, then loads
//   {safezone}/user/logout and checks the cookie is gone and the key is revoked (logout only
//   revokes the key it finds in the cookie, so that also proves the browser sent it).
// windows: opens {safezone}/user/login/{provider}?csrf=CSRF in a page of its own (no opener),
//   as the desktop client opens the system browser, drives the provider's login, and waits for
//   Safezone's validate page to load (having no opener, the page loads its 1x1 image from the
//   client loopback address, which the caller listens on and checks).
// windows-explicit: the same with `&client=windows`, the explicit override.
// --expect-message no (web mode): the test page is served on an origin Safezone is not
//   configured for; the run checks that no message reaches it after the login completes.
//
// Any dialog (alert, confirm, prompt) that a page opens fails the run: pages must not run
// script injected through names or parameters.
//
// Prints exactly one JSON line on standard output: {"ok":true,...} with what it saw, or
// {"ok":false,"error":...,"step":...} (then exits 1). Progress goes to standard error.

import http from 'node:http';
import process from 'node:process';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    safezone: { type: 'string' },
    mode: { type: 'string', default: 'web' },
    'web-port': { type: 'string' },
    csrf: { type: 'string' },
    login: { type: 'string', default: 'alice' },
    password: { type: 'string', default: 'any-password' },
    provider: { type: 'string', default: 'idpone' },
    'timeout-ms': { type: 'string', default: '30000' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    'expect-message': { type: 'string', default: 'yes' },
  },
});

const timeout = Number(values['timeout-ms']);
const outcome = { ok: false, mode: values.mode, step: 'start' };
let browser;
let webServer;

function log(text) {
  process.stderr.write(`browser: ${text}\n`);
}

function finish(code) {
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exitCode = code;
}

function check(condition, what) {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
}

// A promise that never rejects: a race's losers must not become unhandled rejections.
function quiet(promise, label) {
  return promise.then(() => label, () => undefined);
}

function testPage(safezone, csrf, provider) {
  const config = JSON.stringify({ safezone, csrf, provider }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Safezone web client (test)</title></head>
<body>
<h1>Safezone web client (test)</h1>
<button id="sign-in" type="button">Sign in</button>
<p id="status">signed out</p>
<script>
const CONFIG = ${config};
const SAFEZONE_ORIGIN = new URL(CONFIG.safezone).origin;
window.__seen = [];
window.__loginResult = null;
window.addEventListener('message', (event) => {
  window.__seen.push({ origin: event.origin, type: typeof event.data });
  if (event.origin !== SAFEZONE_ORIGIN) {
    return;
  }
  let payload;
  try {
    payload = typeof event.data === 'string' ? JSON.parse(event.data) : null;
  } catch (error) {
    window.__loginResult = { error: 'the message is not a JSON string: ' + error.message };
    return;
  }
  if (!payload || payload.event !== 'onLoginSuccess') {
    return;
  }
  const data = payload.data || {};
  if (data.csrf !== CONFIG.csrf) {
    window.__loginResult = { error: 'csrf mismatch: ' + JSON.stringify(data.csrf) };
    return;
  }
  const key = data.user && data.user.key;
  if (typeof key !== 'string' || !/^[0-9a-f]{48}$/.test(key)) {
    window.__loginResult = { error: 'no user key in the message' };
    return;
  }
  document.cookie = 'userKey=' + key + '; Path=/; SameSite=Lax';
  document.getElementById('status').textContent = 'signed in';
  window.__loginResult = { payload };
});
document.getElementById('sign-in').addEventListener('click', () => {
  const url = CONFIG.safezone + '/user/login/' + CONFIG.provider + '?csrf=' + encodeURIComponent(CONFIG.csrf);
  window.open(url, 'safezone-login', 'width=480,height=640');
});
</script>
</body></html>
`;
}

async function serveTestPage(port, html) {
  const server = http.createServer((request, response) => {
    if (request.url === '/' || request.url.startsWith('/?')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

// Drives the provider's pages in `page` until the browser reaches Safezone's validate page
// or the page closes. Answers 'validate' or 'closed'.
async function completeProviderLogin(page, safezone, login, password) {
  const validatePrefix = `${safezone}/user/validate/`;
  for (let round = 0; round < 8; round += 1) {
    if (page.isClosed()) {
      return 'closed';
    }
    if (page.url().startsWith(validatePrefix)) {
      return 'validate';
    }
    const seen = await Promise.race([
      quiet(page.waitForSelector('input[name="login"]', { timeout }), 'login'),
      quiet(page.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached', timeout }), 'consent'),
      quiet(page.waitForURL((url) => url.href.startsWith(validatePrefix), { timeout }), 'validate'),
      quiet(page.waitForEvent('close', { timeout }), 'closed'),
    ]);
    outcome.providerPages = [...(outcome.providerPages ?? []), seen];
    if (seen === 'login') {
      log(`provider login form at ${page.url()}`);
      await page.fill('input[name="login"]', login);
      await page.fill('input[name="password"]', password);
      const before = page.url();
      await Promise.all([
        quiet(page.waitForURL((url) => url.href !== before, { timeout }), 'moved'),
        page.click('button[type="submit"]'),
      ]);
    } else if (seen === 'consent') {
      log(`provider consent form at ${page.url()}`);
      const before = page.url();
      await Promise.all([
        quiet(page.waitForURL((url) => url.href !== before, { timeout }), 'moved'),
        page.click('button[type="submit"]'),
      ]);
    } else if (seen === 'validate' || seen === 'closed') {
      return seen;
    } else {
      throw new Error(`the provider's pages did not lead back to Safezone (at ${page.url()})`);
    }
  }
  throw new Error(`too many provider pages (at ${page.url()})`);
}

async function resultOf(page) {
  return page.evaluate(() => {
    const main = document.getElementById('login-result');
    return {
      status: main ? main.getAttribute('data-status') : null,
      text: document.body ? document.body.innerText : '',
      html: document.documentElement.outerHTML,
    };
  });
}

async function safezoneUserKeyCookie(context, safezone) {
  const cookies = await context.cookies(safezone);
  return cookies.find((cookie) => cookie.name === 'userKey') ?? null;
}

async function jsonAt(page, url) {
  const response = await page.goto(url, { timeout });
  const status = response ? response.status() : 0;
  let body = null;
  try {
    body = JSON.parse(await page.evaluate(() => document.body.innerText));
  } catch {
    body = null;
  }
  return { status, body };
}

async function runWeb(context, safezone, csrf) {
  const webPort = Number(values['web-port']);
  check(Number.isInteger(webPort) && webPort > 0, '--web-port is required in web mode');
  const webOrigin = `http://127.0.0.1:${webPort}`;
  outcome.step = 'serve test page';
  webServer = await serveTestPage(webPort, testPage(safezone, csrf, values.provider));

  const page = await context.newPage();
  outcome.step = 'open test page';
  await page.goto(`${webOrigin}/`, { timeout });

  outcome.step = 'click sign in';
  const [popup] = await Promise.all([
    page.waitForEvent('popup', { timeout }),
    page.click('#sign-in'),
  ]);
  log(`popup opened at ${popup.url()}`);

  outcome.step = 'provider login in the popup';
  const reached = await completeProviderLogin(popup, safezone, values.login, values.password);
  outcome.popupReached = reached;

  if (values['expect-message'] === 'no') {
    // The test page is not on a configured web origin: Safezone's page must not deliver.
    outcome.step = 'no message to an unconfigured origin';
    await new Promise((resolve) => { setTimeout(resolve, 3000); });
    const delivered = await page.evaluate(() => window.__loginResult);
    outcome.seenMessages = await page.evaluate(() => window.__seen);
    outcome.popupClosed = popup.isClosed();
    check(!delivered, 'no onLoginSuccess reaches a page on an unconfigured origin');
    check(outcome.seenMessages.length === 0, 'no message at all reaches it');
    return;
  }

  outcome.step = 'wait for onLoginSuccess';
  const deadline = Date.now() + timeout;
  let result = null;
  while (Date.now() < deadline) {
    result = await page.evaluate(() => window.__loginResult);
    if (result) {
      break;
    }
    if (!popup.isClosed()) {
      const shown = await resultOf(popup).catch(() => null);
      if (shown && shown.status === 'error') {
        outcome.popupPage = shown.text.slice(0, 2000);
        outcome.popupStatus = shown.status;
        throw new Error('Safezone answered its error page in the popup');
      }
    }
    await new Promise((resolve) => { setTimeout(resolve, 100); });
  }
  outcome.seenMessages = await page.evaluate(() => window.__seen);
  if (!result) {
    if (!popup.isClosed()) {
      const shown = await resultOf(popup).catch(() => null);
      outcome.popupPage = shown ? shown.html.slice(0, 4000) : null;
      outcome.popupStatus = shown ? shown.status : null;
    }
    throw new Error('no onLoginSuccess message reached the test page');
  }
  check(!result.error, result.error);
  outcome.message = result.payload;
  const key = result.payload.data.user.key;
  outcome.key = key;

  outcome.step = 'popup closes';
  if (!popup.isClosed()) {
    await quiet(popup.waitForEvent('close', { timeout: 5000 }), 'closed');
  }
  outcome.popupClosed = popup.isClosed();

  outcome.step = 'userKey cookie';
  const stored = await safezoneUserKeyCookie(context, safezone);
  outcome.cookieBeforeLogout = stored ? stored.value : null;
  check(stored && stored.value === key, "the userKey cookie is set for Safezone's origin");

  outcome.step = 'GET /api/user/{key}';
  const user = await jsonAt(page, `${safezone}/api/user/${key}`);
  outcome.apiUser = user;
  check(user.status === 200, `/api/user/{key} answers 200 (got ${user.status})`);
  check(user.body && user.body.status === 'success', '/api/user/{key} answers success');
  check(user.body.user.key === key, '/api/user/{key} answers the same key');
  check(user.body.user.id === result.payload.data.user.id, 'the same account as the message');

  outcome.step = 'GET /user/logout';
  const logout = await page.goto(`${safezone}/user/logout`, { timeout });
  outcome.logoutStatus = logout ? logout.status() : 0;
  const after = await safezoneUserKeyCookie(context, safezone);
  outcome.cookieAfterLogout = after ? after.value : null;
  check(after === null, 'the userKey cookie is gone after /user/logout');

  outcome.step = 'key revoked';
  const revoked = await jsonAt(page, `${safezone}/api/user/${key}`);
  outcome.statusAfterLogout = revoked.status;
  check(revoked.status === 401, `the key is revoked after logout (got ${revoked.status})`);
}

async function runWindows(context, safezone, csrf, explicit) {
  const page = await context.newPage();
  const client = explicit ? '&client=windows' : '';
  const url = `${safezone}/user/login/${values.provider}?csrf=${encodeURIComponent(csrf)}${client}`;
  outcome.step = 'open login page';
  await page.goto(url, { timeout });
  outcome.step = 'provider login';
  const reached = await completeProviderLogin(page, safezone, values.login, values.password);
  check(reached === 'validate', `the page reached Safezone's validate page (${reached})`);
  outcome.step = 'validate page loads';
  await page.waitForLoadState('load', { timeout });
  const shown = await resultOf(page);
  outcome.pageStatus = shown.status;
  outcome.pageText = shown.text.slice(0, 2000);
  outcome.images = await page.evaluate(() => Array.from(document.images, (image) => ({
    src: image.src,
    complete: image.complete,
    width: image.naturalWidth,
  })));
  check(shown.status === 'success', 'the validate page says success');
  check(outcome.images.length > 0, 'the validate page loads an image');
}

async function main() {
  const { safezone, csrf } = values;
  check(safezone, '--safezone is required');
  check(csrf, '--csrf is required');
  check(['web', 'windows', 'windows-explicit'].includes(values.mode),
    '--mode is web, windows or windows-explicit');

  outcome.step = 'launch chromium';
  browser = await chromium.launch({
    executablePath: values.chromium,
    args: ['--no-sandbox'],
    headless: true,
    timeout,
  });
  const context = await browser.newContext();
  context.setDefaultTimeout(timeout);
  // Any alert/confirm/prompt is script that ran where none should: record it and fail.
  outcome.dialogs = [];
  context.on('dialog', (dialog) => {
    outcome.dialogs.push({ type: dialog.type(), message: dialog.message() });
    dialog.dismiss().catch(() => {});
  });

  if (values.mode === 'web') {
    await runWeb(context, safezone.replace(/\/$/, ''), csrf);
  } else {
    await runWindows(context, safezone.replace(/\/$/, ''), csrf, values.mode === 'windows-explicit');
  }
  check(outcome.dialogs.length === 0, `no dialog opened (saw ${JSON.stringify(outcome.dialogs)})`);
  outcome.ok = true;
  outcome.step = 'done';
}

try {
  await main();
  finish(0);
} catch (error) {
  outcome.error = error instanceof Error ? error.message : String(error);
  finish(1);
} finally {
  await browser?.close().catch(() => {});
  webServer?.close();
  webServer?.closeAllConnections?.();
}
