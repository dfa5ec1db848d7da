-- The content files an operator published for every node, in the order published: each node
-- serves the newest one (`--content` or the shipped file until the first publication). Append
-- only: a rollback publishes an earlier file again.
CREATE TABLE content_versions (
    version      BIGSERIAL PRIMARY KEY,
    body         TEXT      NOT NULL,
    published_at BIGINT    NOT NULL
);
