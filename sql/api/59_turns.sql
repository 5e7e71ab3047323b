-- beliefdb: a turn appended to a conversation (issue 22). A conversation's version in force grows
-- by the appended turn in place: its text is the earlier text plus the turn's line, so every
-- earlier offset, fragment and quote stays where it was, and only the new turn's fragment, its
-- claims and what they change are written (one version per append re-stored every turn). That is
-- how ingest_version stores any text that grows a conversation's text in force at its end
-- (beliefdb._grow_conversation, rule 18 of docs/rules.md); the version's text only ever grows at its
-- end (beliefdb.source_version_immutable allows that for a conversation). A retracted conversation's
-- latest text (the version restoring it puts in force) grows the same way, kept as history until the
-- source is restored. Anything else (a first turn, another principal's conversation, a text that does
-- not extend the latest one, a latest version retracted) is what ingest_version makes of it.

-- Append to a conversation: p_content is its whole text after the turn (the text in force and the
-- turn's line), p_fragments the new turn's fragment(s), p_claims and p_rejected as ingest_version;
-- a conversation's first turn makes the source, a conversation.
create or replace function beliefdb.append_turn(
    p_source text, p_content text, p_fragments jsonb default '[]', p_claims jsonb default '[]',
    p_rejected jsonb default '[]'
) returns jsonb
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb.ingest_version(
        p_source, p_content,
        case when not exists (select from beliefdb.source s
                               where s.workspace_id = beliefdb.current_workspace_id() and s.name = p_source)
             then 'conversation'::beliefdb.origin_type end,
        null, null, null, null, p_fragments, p_claims, p_rejected)
$$;
comment on function beliefdb.append_turn(text, text, jsonb, jsonb, jsonb)
    is 'Append a turn to the acting principal''s conversation in place (its version in force grows), storing only the turn, its claims and what they change; otherwise as ingest_version. jsonb: the ingest report';
