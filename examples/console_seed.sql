-- Fills a migrated, empty Safezone PostgreSQL database for the console's page benchmark
-- (examples/bench-console.sh; BENCHMARKS.md, issue 30):
--
--   psql -f examples/console_seed.sql DATABASE_URL
--
-- A copy of the fill of storage/tests/console_reads_at_scale.rs (the store's reads at the same
-- scale), with its times moved from that test's fixed "now" (2025-11-28 12:00 UTC) to the hour
-- the script runs, so that the console's charts (the last 48 hours and 60 days) and its lists
-- show them. Kept apart from the test's statements rather than shared: the test runs them
-- through sqlx with a fixed clock, this file through psql with the wall clock. Left out: the
-- test's 100,000 `signed_in` events, which only its rollup follower reads (a server started on
-- them would count them in the background while the pages are timed).
--
-- - `accounts`: 1,000,000 (ten names, friend codes `Sneeza12#0034`, display names
--   `Sneeza 123`, one in 97 banned);
-- - `account_last_sign_in`: one per account over the last 60 days;
-- - `ledger`: 100,000 rows of account 1 (a row a minute, reasons `match` 4 in 10, `buy` 2,
--   `claim`, `pack`, `grant`, `refund` 1 each; a quarter gems) and 900,000 of other accounts;
-- - `activity_hours`: 61 days of hourly counters (purchases of items 1 to 40, eight other
--   metrics by six subjects), and their daily sums in `activity_days`;
-- then ANALYZE.
\set ON_ERROR_STOP on

-- now_us: this hour's start in microseconds; now_hour: hours since 1970.
SELECT extract(epoch FROM date_trunc('hour', now()))::bigint * 1000000 AS now_us,
       extract(epoch FROM date_trunc('hour', now()))::bigint / 3600 AS now_hour
\gset

BEGIN;

INSERT INTO accounts (provider, identifier, name, friend_name, friend_digits, level, coins,
                      gems, is_banned, created, updated)
SELECT 'device', 'bench-' || g,
       (ARRAY['Sneeza','Player','Ghost','Viper','Nova','Blaze','Frost','Echo','Rogue','Zed'])[g % 10 + 1]
         || ' ' || g,
       (ARRAY['Sneeza','Player','Ghost','Viper','Nova','Blaze','Frost','Echo','Rogue','Zed'])[g % 10 + 1]
         || (g / 10000),
       g % 10000, 1 + g % 50, g % 5000, g % 300, g % 97 = 0,
       1700000000000000 + g::bigint * 1000000, 1700000000000000 + g::bigint * 1000000
FROM generate_series(1, 1000000) AS g;

INSERT INTO account_last_sign_in (account_id, at)
SELECT g, :now_us - ((g::bigint * 7919) % 5184000) * 1000000
FROM generate_series(1, 1000000) AS g;

INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created)
SELECT 1, CASE WHEN g % 4 = 0 THEN 'gems' ELSE 'coins' END, 10, g,
       (ARRAY['match','match','match','buy','claim','pack','grant','match','buy','refund'])[g % 10 + 1],
       'ref-' || g, :now_us - (100000 - g::bigint) * 60000000
FROM generate_series(1, 100000) AS g;

INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created)
SELECT 2 + g % 999998, CASE WHEN g % 3 = 0 THEN 'gems' ELSE 'coins' END, 10, g, 'match',
       'ref-' || g, :now_us - (900000 - g::bigint) * 6000000
FROM generate_series(1, 900000) AS g;

INSERT INTO activity_hours (metric, hour, subject, value)
SELECT 'purchases', h, 'item:' || i, (h * i) % 13
FROM generate_series(:now_hour - 1464, :now_hour) AS h, generate_series(1, 40) AS i;

INSERT INTO activity_hours (metric, hour, subject, value)
SELECT m, h, s, (h % 97) + 1
FROM generate_series(:now_hour - 1464, :now_hour) AS h,
     unnest(ARRAY['sign_ins','new_players','coins_granted','coins_spent','gems_granted',
                  'gems_spent','match_reports','match_players']) AS m,
     unnest(ARRAY['device','chat','match','buy','solo','duo']) AS s;

INSERT INTO activity_days (metric, day, subject, value)
SELECT metric, hour / 24, subject, SUM(value) FROM activity_hours GROUP BY 1, 2, 3;

COMMIT;
ANALYZE;
