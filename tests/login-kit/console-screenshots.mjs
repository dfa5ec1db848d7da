// Screenshots of the operator console's pages (docs/console/), taken in headless Chromium
// driven by playwright-core from a running console:
//
//   node console-screenshots.mjs --console http://127.0.0.1:PORT/operator/console \
//        --secret SECRET --friend-code 'Name#0001' [--account 1] [--version 2] \
//        [--out docs/console] [--width 1280] [--height 900] [--max-height 2400]
//
// Signs in on the sign-in page with the secret of an operator token, then saves one PNG per
// page: the page's full height, cut at --max-height pixels (so that a long table stays a
// small file). The player of --friend-code (ranked on solo, all time, kills) is shown on the
// player page and among the leaderboard's neighbours; --account's ledger is shown filtered
// (gems of reason `match`); --version is the content version compared with the one before.
// When the console has the Matches pages, also matches.png (the list) and match.png (its first
// match). examples/bench-console.sh (SCREENSHOTS=1) runs it on its 1M-player database.
//
// Fails when a page answers other than 200 or the browser reports an error on it.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    console: { type: 'string' },
    secret: { type: 'string' },
    'friend-code': { type: 'string' },
    account: { type: 'string', default: '1' },
    version: { type: 'string', default: '2' },
    out: { type: 'string', default: 'docs/console' },
    width: { type: 'string', default: '1280' },
    height: { type: 'string', default: '900' },
    'max-height': { type: 'string', default: '2400' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});

if (!values.console || !values.secret || !values['friend-code']) {
  process.stderr.write('--console, --secret and --friend-code are required\n');
  process.exit(2);
}
const base = values.console.replace(/\/$/, '');
const code = encodeURIComponent(values['friend-code']);
const width = Number(values.width);
const maxHeight = Number(values['max-height']);

// Each screenshot: its file name, the page (under the console) it shows and, for long
// tables of text, a lower cut than --max-height (keeping the file under about 400 KB).
const shots = [
  ['overview.png', '/overview'],
  ['home.png', '/'],
  ['players-list.png', '/players/list?list=last_sign_in', 1400],
  ['player.png', `/players?friendCode=${code}`],
  ['ledger-filtered.png', `/players/${values.account}/ledger?currency=gems&reason=match`, 1600],
  ['leaderboards-neighbours.png', `/leaderboards?mode=solo&window=all&category=kills&friendCode=${code}`, 1600],
  ['content-version-diff.png', `/content/versions/${values.version}`, 1400],
  ['webhooks.png', '/webhooks'],
];

const browser = await chromium.launch({ executablePath: values.chromium, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width, height: Number(values.height) } });
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto(`${base}/sign-in`);
  await page.fill('#secret', values.secret);
  await Promise.all([page.waitForNavigation(), page.click('#sign-in button[type="submit"]')]);
  if (page.url() !== `${base}/`) throw new Error(`not signed in: ${page.url()}`);

  // shoot(file, cut): the page shown, its full height cut at `cut` pixels, into `file`.
  const shoot = async (file, cut) => {
    if (problems.length > 0) throw new Error(`${page.url()}: ${problems.join('; ')}`);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const clip = { x: 0, y: 0, width, height: Math.min(height, cut, maxHeight) };
    await page.screenshot({ path: path.join(values.out, file), fullPage: true, clip });
    process.stderr.write(`${file}: ${page.url()} (${width}x${clip.height} of ${height})\n`);
  };

  await mkdir(values.out, { recursive: true });
  for (const [file, target, cut = maxHeight] of shots) {
    const response = await page.goto(`${base}${target}`);
    if (response.status() !== 200) throw new Error(`${target} answered ${response.status()}`);
    await shoot(file, cut);
  }

  // The Matches pages, when the console has them: the list and its first match.
  if ((await page.goto(`${base}/matches`)).status() === 200) {
    await shoot('matches.png', 1600);
    const first = page.locator('#matches a').first();
    if (await first.count() === 1) {
      await Promise.all([page.waitForNavigation(), first.click()]);
      await shoot('match.png', 1600);
    }
  }
} finally {
  await browser.close();
}
