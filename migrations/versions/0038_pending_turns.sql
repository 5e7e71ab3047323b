-- Frozen at revision 0038: forgetting masks a proposed version's turns as a conversation's version
-- masks them (the speaker's name and words, not the marks between), and takes out of the proposal the
-- claims over what it masks (rule 14). Never edit: change functions in sql/ (re-applied after every
-- upgrade).

-- The three-argument _redact_pending goes; sql/internal/42_forgetting.sql, applied after this in the
-- same transaction, makes it again with p_turns as a last argument.
drop function if exists beliefdb._redact_pending(uuid, uuid[], text[]);
