// The API reference page (GET /api/docs) in headless Chromium, driven by playwright-core, under
// the content policy the server sends: the page must render every operation of the document,
// load nothing from another origin and break no rule of its policy.
//
//   node reference-page.mjs --safezone http://127.0.0.1:PORT [--timeout-ms 30000]
//
// Opens {safezone}/api/docs, waits for the operations to render, opens the device sign-in
// operation and waits for its parameters and answers, then tries the health check from the page
// ("Try it out", "Execute") and reads the status it got. Prints exactly one JSON line on standard
// output: {"ok":true,"operations":[...],"violations":[],"foreign":[],...} or
// {"ok":false,"error":...,"step":...} (then exits 1). Progress goes to standard error.

import process from 'node:process';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    safezone: { type: 'string' },
    'timeout-ms': { type: 'string', default: '30000' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});

const timeout = Number(values['timeout-ms']);
const base = values.safezone;
const outcome = { ok: false, step: 'start', violations: [], foreign: [], failed: [], errors: [] };

function step(name) {
  outcome.step = name;
  process.stderr.write(`reference-page: ${name}\n`);
}

let browser;
try {
  step('launch');
  browser = await chromium.launch({ executablePath: values.chromium, headless: true });
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  // Every content-policy violation, as the page itself sees it.
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__violations.push(`${event.effectiveDirective} ${event.blockedURI}`);
    });
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${base}/`) && !url.startsWith('data:')) {
      outcome.foreign.push(url);
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) {
      outcome.failed.push(`${response.status()} ${response.url()}`);
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') {
      outcome.errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => outcome.errors.push(String(error)));

  step('open the page');
  const answer = await page.goto(`${base}/api/docs`);
  outcome.status = answer.status();
  outcome.policy = answer.headers()['content-security-policy'];

  step('wait for the operations');
  await page.waitForSelector('.opblock-summary-path');
  outcome.title = await page.locator('.info .title').first().innerText();
  outcome.operations = await page.$$eval('.opblock', (blocks) =>
    blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
      const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
      return `${method.trim().toLowerCase()} ${path}`;
    }),
  );

  step('open the device sign-in');
  const signIn = page.locator('.opblock', {
    has: page.locator('.opblock-summary-path[data-path="/api/validate/device/{deviceId}"]'),
  });
  await signIn.locator('.opblock-summary').click();
  await signIn.locator('.parameters-container').waitFor();
  await signIn.locator('.responses-wrapper').waitFor();
  outcome.signInParameters = await signIn.locator('.parameter__name').allInnerTexts();
  outcome.signInResponses = await signIn.locator('.response-col_status').allInnerTexts();

  step('try the health check from the page');
  const health = page.locator('.opblock', {
    has: page.locator('.opblock-summary-path[data-path="/api"]'),
  });
  await health.locator('.opblock-summary').click();
  await health.locator('button.try-out__btn').click();
  await health.locator('button.execute').click();
  const live = health.locator('.live-responses-table .response .response-col_status').first();
  await live.waitFor();
  outcome.healthTried = (await live.innerText()).trim();

  outcome.violations = await page.evaluate(() => window.__violations);
  outcome.ok = true;
  outcome.step = 'done';
} catch (error) {
  outcome.ok = false;
  outcome.error = String(error?.message ?? error);
} finally {
  await browser?.close();
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
process.exitCode = outcome.ok ? 0 : 1;
