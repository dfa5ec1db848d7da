-- Who published each content version and why (the operator token's name, NULL for the command
-- line; the reason when one was given), and what a rollback restores: the version first
-- published with the same text, so that rolling back twice goes two versions back instead of
-- toggling. Versions published before this are filled in from the operator audit (their
-- publisher and reason) and from their texts (a version whose text an earlier one has restores
-- the earliest such version).
ALTER TABLE content_versions ADD COLUMN restores BIGINT REFERENCES content_versions (version);
ALTER TABLE content_versions ADD COLUMN published_by TEXT;
ALTER TABLE content_versions ADD COLUMN reason TEXT;

UPDATE content_versions SET
    published_by = (
        SELECT t.name FROM operator_audit a JOIN operator_tokens t ON t.id = a.token_id
        WHERE a.target = 'content:' || content_versions.version AND a.result = 'done'
        ORDER BY a.id LIMIT 1
    ),
    reason = (
        SELECT a.reason FROM operator_audit a
        WHERE a.target = 'content:' || content_versions.version AND a.result = 'done'
        ORDER BY a.id LIMIT 1
    ),
    restores = (
        SELECT MIN(earlier.version) FROM content_versions earlier
        WHERE earlier.version < content_versions.version AND earlier.body = content_versions.body
    );
