-- The activity rollup's counters summed per day (unix time / 86400, UTC), written with the
-- hours by the same transaction: a day's chart reads a row per day and subject, not 24 (a
-- 60-day chart of purchases by item summed 24 times as many rows). Deleted with the hours by
-- the retention sweep, after 61 days. Filled from the hours already counted.
CREATE TABLE activity_days (
    metric  TEXT   NOT NULL,
    day     BIGINT NOT NULL,
    subject TEXT   NOT NULL,
    value   BIGINT NOT NULL,
    PRIMARY KEY (metric, day, subject)
) WITH (fillfactor = 70);
CREATE INDEX activity_days_day ON activity_days (day);

INSERT INTO activity_days (metric, day, subject, value)
SELECT metric, hour / 24, subject, SUM(value) FROM activity_hours GROUP BY 1, 2, 3;
