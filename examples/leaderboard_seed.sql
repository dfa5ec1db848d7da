-- Seeds a migrated, empty Safezone PostgreSQL database with players and a year of match results
-- for the leaderboard benchmark (examples/bench.sh, section `boards`; BENCHMARKS.md, issue 6).
--
--   psql -v players=1000000 -v results=10000000 -f examples/leaderboard_seed.sql DATABASE_URL
--
-- Variables (all optional): players (1,000,000), results (10,000,000 player results),
-- match_players (100 results per match), days (365).
--
-- What it writes, in one transaction, one INSERT ... SELECT per table:
-- - `accounts`: ids 1 to :players (provider `seed`), friend codes made of the first 32 x 32 of
--   the 64 x 64 adjective-animal names new accounts get (`SwiftFalcon#0042`), unique: name = id
--   mod 1024, digits = id / 1024 (so at most 10,240,000 players; at ten million these names'
--   codes are nearly all taken, and a device signing up later finds a free code among the other
--   names).
-- - `matches`: ceil(results / match_players) matches `seed-<n>`, numbered in the order they
--   ended, spread over the last :days days with recent activity denser (a fraction x of the
--   matches ended within the last x^1.5 of the period: ~2% in the last 24 hours, ~8% in 7 days,
--   ~19% in 30 days); modes solo 50%, duo 25%, squad 20%, limited 5%; 10 to 25 minutes long.
-- - `match_log`: :results rows in the order the matches ended (as reports would append them),
--   :match_players per match, each player at most once per match. Activity is skewed: the
--   player of activity rank r plays in proportion to r^-0.4 (for 1M players and 10M results the
--   most active has ~2,500 results, the median ~8, the least ~6), and each player's matches are
--   spread over the whole period; activity ranks are scattered over the account ids. Each player
--   has a hidden skill: placements order the match's players by skill plus noise; teams of 1, 2,
--   4 and 1 (solo, duo, squad, limited) share a placement (1 to 100, 50 or 25); kills are
--   exponential with a mean from ~0.15 (first out) to ~5 (winner, best skill), at most 40; time
--   alive is the whole match for the last one standing and shrinks with the placement.
-- - `match_log_appender.appended`: the number of rows appended.
--
-- Foreign keys and secondary indexes of `match_log` are dropped for the load and recreated after
-- it (the foreign keys validated over all rows), then the tables are vacuumed and analysed, as a
-- long-running database would be. No `stat_hours` or progress rows are written: profiles of
-- seeded players show no statistics; boards follow `match_log` only.
\set ON_ERROR_STOP on
\if :{?players}
\else
  \set players 1000000
\endif
\if :{?results}
\else
  \set results 10000000
\endif
\if :{?match_players}
\else
  \set match_players 100
\endif
\if :{?days}
\else
  \set days 365
\endif
\timing on
SET synchronous_commit = off;
SET work_mem = '64MB';
SET maintenance_work_mem = '512MB';

SELECT
    ceil(:results::numeric / :match_players)::bigint AS match_count,
    (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS now_us
\gset
-- Multipliers near the golden ratio of the count, prime to it: bijections that scatter
-- activity ranks over account ids and a player's consecutive matches over the period.
SELECT min(c) AS match_step FROM generate_series(round(:match_count * 0.618034)::bigint,
    round(:match_count * 0.618034)::bigint + 10000) c WHERE gcd(c, :match_count) = 1
\gset
SELECT min(c) AS account_step FROM generate_series(round(:players * 0.618034)::bigint,
    round(:players * 0.618034)::bigint + 10000) c WHERE gcd(c, :players) = 1
\gset
\echo seeding :players players, :results results in :match_count matches over :days days

BEGIN;
SELECT set_config('seed.players', :'players', true), set_config('seed.results', :'results', true),
    set_config('seed.match_players', :'match_players', true) \g /dev/null
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM match_log)
        OR EXISTS (SELECT 1 FROM matches) THEN
        RAISE EXCEPTION 'the leaderboard seed needs a migrated, empty database';
    END IF;
    IF current_setting('seed.players')::bigint NOT BETWEEN 1 AND 10240000
        OR current_setting('seed.results')::bigint < 1
        OR current_setting('seed.match_players')::bigint NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'players must be 1 to 10,240,000, results at least 1, match_players 1 to 100';
    END IF;
END
$$;

\echo accounts
INSERT INTO accounts (id, provider, identifier, name, friend_name, friend_digits, created, updated)
OVERRIDING SYSTEM VALUE
SELECT i, 'seed', 'seed-' || i, code_name, code_name, (i / 1024) % 10000, created, created
FROM (
    SELECT i,
        (ARRAY['Swift', 'Silent', 'Brave', 'Clever', 'Fierce', 'Lucky', 'Mighty', 'Nimble',
               'Quick', 'Rapid', 'Sly', 'Bold', 'Calm', 'Daring', 'Eager', 'Frosty', 'Grim',
               'Hardy', 'Jolly', 'Keen', 'Lone', 'Merry', 'Noble', 'Proud', 'Rusty', 'Shady',
               'Stormy', 'Tough', 'Vivid', 'Wild', 'Witty', 'Zesty'])[i % 32 + 1]
        || (ARRAY['Falcon', 'Wolf', 'Tiger', 'Badger', 'Otter', 'Raven', 'Viper', 'Bison',
                  'Cobra', 'Coyote', 'Eagle', 'Ferret', 'Gecko', 'Hawk', 'Heron', 'Jackal',
                  'Koala', 'Lynx', 'Mantis', 'Moose', 'Ocelot', 'Panda', 'Puma', 'Rhino',
                  'Shark', 'Sloth', 'Stoat', 'Toucan', 'Walrus', 'Weasel', 'Yak',
                  'Zebra'])[i / 32 % 32 + 1] AS code_name,
        :now_us - (:days + 30) * 86400000000::bigint + i * 1000 AS created
    FROM generate_series(1, :players::bigint) i
) named;
SELECT setval(pg_get_serial_sequence('accounts', 'id'), :players) \g /dev/null

\echo matches
-- m: the match's number in the activity layout (its players are the results g = slot *
-- match_count + m, g in activity order); t: its place in time.
CREATE TEMP TABLE seed_matches ON COMMIT DROP AS
SELECT t, m, mode,
    CASE mode WHEN 'duo' THEN 2 WHEN 'squad' THEN 4 ELSE 1 END AS team,
    duration, ended
FROM (
    SELECT m, (m * :match_step) % :match_count AS t,
        CASE WHEN pick < 0.50 THEN 'solo' WHEN pick < 0.75 THEN 'duo'
             WHEN pick < 0.95 THEN 'squad' ELSE 'limited' END AS mode,
        600 + floor(random() * 901)::bigint AS duration,
        :now_us - floor(:days * 86400000000::float8
            * power(1 - ((m * :match_step) % :match_count + 0.5)::float8 / :match_count, 1.5))::bigint
            AS ended
    FROM (SELECT m, random() AS pick FROM generate_series(0::bigint, :match_count - 1) m) picked
) placed;

INSERT INTO matches (id, mode, started, ended, reported, summary, granted)
SELECT 'seed-' || t, mode, ended - duration * 1000000, ended,
    ended + 1000000 + floor(random() * 4000000)::bigint, '{"players":[],"skipped":[]}', '[]'
FROM seed_matches ORDER BY t;

-- Foreign keys and secondary indexes of the match log, dropped for the load.
CREATE TEMP TABLE seed_dropped ON COMMIT DROP AS
SELECT 'ALTER TABLE match_log ADD CONSTRAINT ' || quote_ident(conname) || ' '
        || pg_get_constraintdef(oid) AS recreate,
    'ALTER TABLE match_log DROP CONSTRAINT ' || quote_ident(conname) AS drop, 1 AS step
FROM pg_constraint WHERE conrelid = 'match_log'::regclass AND contype = 'f'
UNION ALL
SELECT pg_get_indexdef(indexrelid), 'DROP INDEX ' || indexrelid::regclass::text, 2
FROM pg_index
WHERE indrelid = 'match_log'::regclass AND NOT indisprimary
    AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid);
SELECT drop FROM seed_dropped ORDER BY step
\gexec

\echo match_log
INSERT INTO match_log (match_id, account_id, mode, ended, placement, kills, time_alive)
SELECT 'seed-' || sm.t, r.account_id, sm.mode, sm.ended,
    (r.pos - 1) / sm.team + 1,
    least(40, floor(-ln(1 - random()) * (0.15 + 3.5 * (1 - r.q) ^ 2 * (0.5 + r.skill))))::bigint,
    CASE WHEN r.pos = 1 THEN sm.duration
         ELSE floor(sm.duration * (1 - r.q) ^ 1.3 * (0.85 + 0.15 * random()))::bigint END
FROM (SELECT * FROM seed_matches ORDER BY t OFFSET 0) sm
CROSS JOIN LATERAL (
    SELECT account_id, skill, pos,
        (pos - 1)::float8 / greatest(count(*) OVER () - 1, 1) AS q
    FROM (
        SELECT account_id, skill,
            row_number() OVER (ORDER BY skill + 1.5 * random() DESC) AS pos
        FROM (
            SELECT account_id,
                (hashint8extended(account_id, 7) & 4503599627370495)::float8
                    / 4503599627370496 AS skill
            FROM (
                SELECT ((greatest(1, least(:players, ceil(:players * power(
                        (s * :match_count + sm.m + 1)::float8 / :results, 1 / 0.6))))::bigint
                        - 1) * :account_step) % :players + 1 AS account_id
                FROM generate_series(0::bigint, :match_players - 1) s
                WHERE s * :match_count + sm.m < :results
            ) slots
        ) skilled
    ) ranked
) r;

UPDATE match_log_appender SET appended = appended + (SELECT count(*) FROM match_log) WHERE id = 1;

\echo match_log indexes and foreign keys
SELECT recreate FROM seed_dropped ORDER BY step DESC
\gexec
COMMIT;

\echo vacuum analyze
VACUUM (ANALYZE) accounts, matches, match_log;
