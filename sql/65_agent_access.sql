-- beliefdb: how agents reach it over the network. The HTTP and MCP servers take the principal and
-- the workspace from a bearer token (beliefdb.api_token), never from the request.

-- Tokens are the schema owner's: the application role may not read or write them, not even their
-- hashes; row-level security keeps the rule of every workspace table all the same.
alter table beliefdb.api_token enable row level security;
drop policy if exists workspace_isolation on beliefdb.api_token;
create policy workspace_isolation on beliefdb.api_token to beliefdb_app
    using (workspace_id = (select beliefdb.current_workspace_id()))
    with check (workspace_id = (select beliefdb.current_workspace_id()));

-- Making and revoking tokens is appended to the workspace's audit chain (rule 12), as every change
-- of workspace rows is: the token's id and a hash of the row, never its hash of the secret.
do $$
declare
    v_op text;
begin
    foreach v_op in array array['insert', 'update', 'delete'] loop
        execute pg_catalog.format(
            'create or replace trigger %I after %s on beliefdb.api_token referencing %s table as changed_rows '
            'for each statement execute function beliefdb.audit_rows(''id'')',
            'api_token_audit_' || v_op, v_op, case v_op when 'delete' then 'old' else 'new' end);
    end loop;
end
$$;

-- Who a bearer token speaks for: the principal and workspace of the token whose secret hashes to
-- p_token_sha256, unless it was revoked; no row for anything else. It runs before a workspace is
-- bound (the server binds the one it returns), so it reads with its owner's rights, and it
-- returns nothing a caller could use without holding the secret.
create or replace function beliefdb.authenticate(p_token_sha256 bytea)
returns table (token_id uuid, workspace_id uuid, workspace text, principal text, read_only boolean)
language sql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
    select t.id, t.workspace_id, w.name, t.principal, t.read_only
      from beliefdb.api_token t
      join beliefdb.workspace w on w.id = t.workspace_id
     where t.token_sha256 = p_token_sha256 and t.revoked_at is null
$$;
comment on function beliefdb.authenticate(bytea) is 'The principal and workspace a bearer token (by the SHA-256 of its secret) speaks for, unless revoked';


-- Rule 19 in a recorded run: a search hit is not evidence. The belief a memory_read step of run
-- p_run read whose id is (or starts with) p_cited; null when the run read none, or several, such.
create or replace function beliefdb._read_in_run(p_ws uuid, p_run uuid, p_cited text) returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when count(distinct a.antecedent) = 1 then min(a.antecedent::text)::uuid end
      from beliefdb.step s
      join beliefdb.justification j on j.workspace_id = s.workspace_id and j.consequent = s.id
      join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
      join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent and n.kind = 'belief'
     where s.workspace_id = p_ws and s.run_id = p_run and s.kind = 'memory_read' and a.edge_kind = 'reads'
       and p_cited <> '' and pg_catalog.starts_with(a.antecedent::text, pg_catalog.lower(p_cited))
$$;
comment on function beliefdb._read_in_run(uuid, uuid, text) is 'The belief a memory_read step of a run read, by id or unique prefix (rule 19); null if none or several';

-- A decision recorded in a run may cite only beliefs the run read (a memory_read step with a reads
-- edge from them) and that are current now: an id nobody showed the agent, one read in another run,
-- or one superseded, retracted or expired since it was read is refused and named with its reason,
-- and the reason it was part of (a group of joint supports) is dropped. What survives is recorded
-- by beliefdb.decide; with nothing left the decision is needs_review, "No source-backed answer yet",
-- and nothing may act on it until a person approves it.
create or replace function beliefdb.decide_in_run(p_run uuid, p_title text, p_justifications jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_reason jsonb;
    v_kept jsonb := '[]';
    v_group jsonb;
    v_whole boolean;
    v_cited text;
    v_belief uuid;
    v_status text;
    v_refused jsonb := '[]';
begin
    if v_ws is null or not exists (select from beliefdb.workspace w where w.id = v_ws) then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003';
    end if;
    if not exists (select from beliefdb.run r where r.workspace_id = v_ws and r.id = p_run) then
        raise exception 'unknown run %', p_run using errcode = 'BD004';
    end if;
    if p_justifications is not null and jsonb_typeof(p_justifications) <> 'array' then
        raise exception 'a decision''s reasons are an array of arrays of belief ids' using errcode = 'BD005';
    end if;
    for v_reason in select r from jsonb_array_elements(coalesce(p_justifications, '[]')) r loop
        if jsonb_typeof(v_reason) <> 'array' then
            raise exception 'a decision''s reasons are an array of arrays of belief ids' using errcode = 'BD005';
        end if;
        v_group := '[]';
        v_whole := true;
        for v_cited in select x from jsonb_array_elements_text(v_reason) x loop
            v_belief := beliefdb._read_in_run(v_ws, p_run, v_cited);
            if v_belief is null then
                v_refused := v_refused || jsonb_build_object('belief', v_cited, 'reason',
                    'not read in this run: cite only what this run''s reads (ask, why) returned');
                v_whole := false;
                continue;
            end if;
            select b.status::text into v_status from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_belief;
            if not exists (select from beliefdb.node n where n.workspace_id = v_ws and n.id = v_belief and n.current) then
                v_refused := v_refused || jsonb_build_object('belief', v_belief, 'reason',
                    'no longer current (' || coalesce(v_status, 'gone') || ') since this run read it');
                v_whole := false;
                continue;
            end if;
            v_group := v_group || to_jsonb(v_belief::text);
        end loop;
        if v_whole and jsonb_array_length(v_group) > 0 then
            v_kept := v_kept || jsonb_build_array(v_group);
        end if;
    end loop;
    return beliefdb.decide(p_title, v_kept) || jsonb_build_object('run', p_run, 'refused', v_refused);
end
$$;
comment on function beliefdb.decide_in_run(uuid, text, jsonb) is 'Record a decision of a run citing only beliefs the run read and that are current (rule 19): others are refused and named';

-- Functions are not public (60_privileges.sql, which ran before this file, revoked the others); the
-- allow-list of the application role, one line each.
revoke execute on function beliefdb.authenticate(bytea) from public;
revoke execute on function beliefdb._read_in_run(uuid, uuid, text) from public;
revoke execute on function beliefdb.decide_in_run(uuid, text, jsonb) from public;
grant execute on function beliefdb.authenticate(bytea) to beliefdb_app;
grant execute on function beliefdb.decide_in_run(uuid, text, jsonb) to beliefdb_app;
