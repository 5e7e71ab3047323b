-- Frozen at revision 0048: a span forget masks remembers the line it lay in (the line's offset and
-- length in its version, and a keyed digest of the line's words as they were, under the workspace's
-- secret key), so that the same line, back word for word in a text of the same source, is masked
-- again (rule 14: a chat cut at its end, forgotten in, then ingested whole again). Spans masked
-- before this revision have no line: what they took out is not recognised when it comes back.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.redaction
    add column line_start integer,
    add column line_length integer,
    add column line_digest bytea,
    add constraint redaction_line_check
        check ((line_start is null) = (line_digest is null) and (line_length is null) = (line_digest is null));
comment on table beliefdb.redaction is 'A span of a source version masked when something in it was forgotten: offsets, reason and its line''s keyed digest, never the text';
