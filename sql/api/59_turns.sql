-- beliefdb: a turn appended to a conversation (issue 22). A conversation's version in force grows
-- by the appended turn in place: its text is the earlier text plus the turn's line, so every
-- earlier offset, fragment and quote stays where it was, and only the new turn's fragment, its
-- claims and what they change are written (one version per append re-stored every turn). The
-- version's text only ever grows at its end (beliefdb.source_version_immutable allows that for a
-- conversation), and its sha256 is that of the text now in force (rule 18 of docs/rules.md: the
-- same conversation ingested whole again is a no-op). Anything else (a first turn, another
-- principal's conversation, a retracted one, a text that does not extend the one in force) takes
-- the way of ingest_version.

-- Append to a conversation: p_content is its whole text after the turn (the text in force and the
-- turn's line), p_fragments the new turn's fragment(s), p_claims and p_rejected as ingest_version.
create or replace function beliefdb.append_turn(
    p_source text, p_content text, p_fragments jsonb default '[]', p_claims jsonb default '[]',
    p_rejected jsonb default '[]'
) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_source beliefdb.source;
    v_version beliefdb.source_version;
    v_length integer;
    v_opened boolean;
    v_outcome jsonb;
begin
    perform beliefdb.lock_workspace();
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003';
    end if;
    select * into v_source from beliefdb.source s where s.workspace_id = v_ws and s.name = p_source;
    if found and v_source.origin_type = 'conversation' and v_source.retracted_at is null
       and v_source.owner = beliefdb.current_principal() then
        select * into v_version
          from beliefdb.source_version v
         where v.workspace_id = v_ws and v.source_id = v_source.id
         order by v.version desc
         limit 1;
    end if;
    v_length := length(v_version.content);
    if v_version.id is null or v_version.retracted_at is not null or length(p_content) <= v_length
       or left(p_content, v_length) <> v_version.content
       or exists (select from jsonb_array_elements(coalesce(p_fragments, '[]')) f
                   where (f ->> 'start')::integer < v_length) then
        return beliefdb.ingest_version(p_source, p_content,
                                       case when v_source.id is null then 'conversation'::beliefdb.origin_type end,
                                       null, null, null, null,
                                       p_fragments, p_claims, p_rejected);
    end if;
    perform beliefdb._begin_changes();
    -- one audit event for the turn: its statements' events become entries of it (rows)
    v_opened := beliefdb._audit_open(v_ws);
    v_outcome := beliefdb._grow_conversation(v_ws, v_version.id, p_content, p_fragments, p_claims, p_rejected);
    perform beliefdb._audit_finish(v_opened, 'ingest', jsonb_build_object(
        'source', v_source.name, 'version', v_version.version, 'appended', true,
        'sha256', encode(sha256(convert_to(p_content, 'UTF8')), 'hex'),
        'accepted', jsonb_array_length(v_outcome -> 'accepted'),
        'rejected', jsonb_array_length(v_outcome -> 'rejected'),
        'superseded', v_outcome -> 'superseded', 'conflicts', v_outcome -> 'conflicts'));
    return v_outcome;
end
$$;
comment on function beliefdb.append_turn(text, text, jsonb, jsonb, jsonb)
    is 'Append a turn to the acting principal''s conversation in place (its version in force grows), storing only the turn, its claims and what they change; otherwise as ingest_version. jsonb: the ingest report';
