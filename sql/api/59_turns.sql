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

-- (the release before took no idempotency key)
drop function if exists beliefdb.append_turn(text, text, jsonb, jsonb, jsonb);

-- Append to a conversation: p_content is its whole text after the turn (the text in force and the
-- turn's line), p_fragments the new turn's fragment(s) (or all of the text's, the turn last: a text
-- that is not the conversation's latest grown, as ingest_version takes it), p_claims and p_rejected as
-- ingest_version; a conversation's first turn makes the source, a conversation. With
-- p_idempotency_key, the key names this turn's request in the workspace (rule 18 of docs/rules.md): the
-- same turn sent again with it (the same conversation, speaker and words, and the same time, or none
-- again: p_stamped says the request gave none and its time is beliefdb's clock) appends nothing and
-- answers the first one's turn, already_applied (beliefdb._keyed_turn); another request with it is
-- refused (idempotency_key_reused, BD009). A turn without a time is a new turn every time it is sent
-- (rule 18): a client that retries sends its time, or a key. The key is kept on the turn's fragment
-- (none when the turn was only proposed to the conversation's owner, or was a known turn already).
create or replace function beliefdb.append_turn(
    p_source text, p_content text, p_fragments jsonb default '[]', p_claims jsonb default '[]',
    p_rejected jsonb default '[]', p_idempotency_key text default null, p_stamped boolean default false
) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_turn jsonb;
    v_report jsonb;
begin
    perform beliefdb._check_idempotency_key(p_idempotency_key);
    if p_idempotency_key is not null then
        perform beliefdb._check_fragments(p_fragments, p_content);
        -- (the turn: the last fragment of the text, one with a speaker)
        select f into v_turn from jsonb_array_elements(p_fragments) f order by (f ->> 'start')::integer desc limit 1;
        if nullif(v_turn ->> 'speaker', '') is null then
            raise exception 'an idempotency key names a turn: the last fragment given is no turn (it has no speaker)'
                using errcode = 'BD005', hint = 'give the turn''s fragment, {"start", "end", "speaker", "time"}, last';
        end if;
        perform beliefdb.lock_workspace();
        v_ws := beliefdb._bound_workspace();
        v_report := beliefdb._keyed_turn(v_ws, p_idempotency_key, p_source, v_turn ->> 'speaker',
                                         substr(p_content, (v_turn ->> 'start')::integer + 1,
                                                (v_turn ->> 'end')::integer - (v_turn ->> 'start')::integer),
                                         (v_turn ->> 'time')::timestamptz, p_stamped);
        if v_report is not null then
            return v_report;
        end if;
    end if;
    v_report := beliefdb.ingest_version(
        p_source, p_content,
        case when not exists (select from beliefdb.source s where s.workspace_id = v_ws and s.name = p_source)
             then 'conversation'::beliefdb.origin_type end,
        null, null, null, null, p_fragments, p_claims, p_rejected);
    if p_idempotency_key is not null and not coalesce((v_report ->> 'proposed')::boolean, false) then
        update beliefdb.fragment f
           set idempotency_key = p_idempotency_key, stamped = p_stamped
         where f.workspace_id = v_ws and f.source_version_id = (v_report ->> 'version_id')::uuid
           and f.start_offset = (v_turn ->> 'start')::integer and f.end_offset = (v_turn ->> 'end')::integer
           and f.idempotency_key is null;
    end if;
    return v_report;
end
$$;
comment on function beliefdb.append_turn(text, text, jsonb, jsonb, jsonb, text, boolean)
    is 'Append a turn to the acting principal''s conversation in place (its version in force grows), storing only the turn, its claims and what they change; otherwise as ingest_version; an idempotency key makes a retry safe (rule 18). jsonb: the ingest report';
