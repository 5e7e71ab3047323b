-- Frozen at revision 0037: forgetting a subject forgets what the subject said too (the turns of the
-- speakers whose name is that subject; rule 14). Never edit: change functions in sql/ (re-applied
-- after every upgrade).

-- The three-argument forget and the four-argument _forget_core go; sql/api/64_lifecycle.sql and
-- sql/internal/42_forgetting.sql, applied after this in the same transaction, make them again with
-- the speakers as a last argument (its default keeps three-argument calls working).
drop function if exists beliefdb.forget(text, text, boolean);
drop function if exists beliefdb._forget_core(uuid, text, uuid, text);
-- (a helper of forget made by this revision while it was unreleased, renamed since: _redact_pending)
drop function if exists beliefdb._redact_proposals(uuid, uuid[], text[]);
-- (and _redact_quotes takes the spans it keeps: another speaker's words)
drop function if exists beliefdb._redact_quotes(uuid, uuid[], text[], text);
