-- beliefdb: how agents reach it over the network, and rule 19 in a recorded run. The HTTP and MCP
-- servers take the principal and the workspace from a bearer token (beliefdb.api_token), never from
-- the request; a decision recorded in a run may cite only what the run read (docs/rules.md, rule 19).
-- Rules cited as "rule N" are those of docs/rules.md.

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

-- A decision recorded in a run may cite only beliefs the run read (a memory_read step with a reads
-- edge from them) and that are current now: an id nobody showed the agent, one read in another run,
-- one superseded, retracted or expired since it was read (or before: one a read as of a past moment
-- showed, said so), or fixture or synthetic material (rule 15:
-- a decision is production's) is refused and named with its reason, and the reason it was part of (a
-- group of joint supports) is dropped. What survives is recorded by beliefdb.decide; with nothing
-- left the decision is needs_review, "No source-backed answer yet", and nothing may act on it until a
-- person approves it: its review item names the citations refused and why (the agent did cite), and
-- the audit chain keeps every refusal (a decide_in_run event), beside what survived too. An idempotency
-- key names one request (rule 18): the same title, reasons (the same beliefs, by id or prefix, in any
-- order: beliefdb._decision_request) and run again with it record nothing and answer the decision it
-- recorded, with the citations refused then (already_applied); another request
-- with it (a decide's too) is refused (idempotency_key_reused, BD009).
create or replace function beliefdb.decide_in_run(p_run uuid, p_title text, p_justifications jsonb,
                                                  p_idempotency_key text default null)
returns beliefdb.run_decision
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_reason jsonb;
    v_kept jsonb := '[]';
    v_group jsonb;
    v_whole boolean;
    v_cited text;
    v_belief uuid;
    v_status text;
    v_world text;
    v_refused beliefdb.refusal[] := '{}';
    v_recorded beliefdb.recorded;
    v_read record;
    v_request bytea := case when p_idempotency_key is not null then beliefdb._decision_request(p_run, p_justifications) end;
begin
    perform beliefdb._check_reasons(p_justifications);
    perform beliefdb._check_idempotency_key(p_idempotency_key);
    -- bound to a workspace deleted since: as if none were bound
    if not exists (select from beliefdb.workspace w where w.id = v_ws) then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    -- the workspace's writers wait from here, so what is checked current below is current at the decision,
    -- once what expired before it is processed (rule 16: a belief whose valid time ended since the run
    -- read it is refused as expired, as a reader then saw it)
    perform beliefdb.lock_workspace();
    if not exists (select from beliefdb.run r where r.workspace_id = v_ws and r.id = p_run) then
        raise exception 'unknown run %', p_run using errcode = 'BD004';
    end if;
    perform beliefdb._require_owner(v_ws, p_run, 'decide in it');
    -- the same request again by its key: the decision it recorded and what it refused, nothing written
    v_recorded.id := beliefdb._keyed_decision(v_ws, p_idempotency_key, p_title, v_request);
    if v_recorded.id is not null then
        return row(v_recorded.id, (select d.status from beliefdb.decision d where d.workspace_id = v_ws and d.id = v_recorded.id),
                   p_run, beliefdb._run_refusals(v_ws, v_recorded.id), true)::beliefdb.run_decision;
    end if;
    for v_reason in select r from jsonb_array_elements(coalesce(p_justifications, '[]')) r loop
        v_group := '[]';
        v_whole := true;
        for v_cited in select x from jsonb_array_elements_text(v_reason) x loop
            v_belief := beliefdb._read_in_run(v_ws, p_run, v_cited);
            if v_belief is null then
                v_refused := v_refused || row(v_cited,
                    'not read in this run: cite only what this run''s reads (ask, why) returned')::beliefdb.refusal;
                v_whole := false;
                continue;
            end if;
            select b.status::text into v_status from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_belief;
            if not exists (select from beliefdb.node n where n.workspace_id = v_ws and n.id = v_belief and n.current) then
                -- refused (not current), and said as it happened: superseded (retracted, expired) since the
                -- run read it only if it was live when a read of the run returned it; one read as of a
                -- moment before it stopped, by a read made after, was not current then either
                select s.payload ->> 'as_of' as as_of,
                       beliefdb.live_at(b, s.created_at) as live
                  into v_read
                  from beliefdb.step s
                  join beliefdb.justification j on j.workspace_id = s.workspace_id and j.consequent = s.id
                  join beliefdb.justification_antecedent a
                    on a.workspace_id = j.workspace_id and a.justification_id = j.id and a.edge_kind = 'reads'
                  join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.antecedent
                 where s.workspace_id = v_ws and s.run_id = p_run and s.kind = 'memory_read' and a.antecedent = v_belief
                 order by beliefdb.live_at(b, s.created_at) desc, s.seq desc
                 limit 1;
                v_refused := v_refused || row(v_belief::text,
                    case when v_read.live is not false
                         then 'no longer current (' || coalesce(v_status, 'gone') || ') since this run read it'
                         else 'not current (' || coalesce(v_status, 'gone') || '), nor when this run read it'
                              || coalesce(' (as of ' || v_read.as_of || ')', '')
                              || ': a decision cites only what is current' end)::beliefdb.refusal;
                v_whole := false;
                continue;
            end if;
            -- a decision is production's (rule 15): fixture material a run read is refused here, named,
            -- as decide would refuse it (BD002) and record nothing
            select b.provenance::text into v_world from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_belief;
            if v_world <> 'production' then
                v_refused := v_refused || row(v_belief::text,
                    v_world || ' material, not production history: a decision may not rest on it')::beliefdb.refusal;
                v_whole := false;
                continue;
            end if;
            v_group := v_group || to_jsonb(v_belief::text);
        end loop;
        if v_whole and jsonb_array_length(v_group) > 0 then
            v_kept := v_kept || jsonb_build_array(v_group);
        end if;
    end loop;
    v_recorded := beliefdb._decide(p_title, v_kept, p_idempotency_key, v_request);
    if cardinality(v_refused) > 0 then
        perform beliefdb._audit('decide_in_run', jsonb_build_object('decision', v_recorded.id, 'run', p_run,
            'refused', (select jsonb_agg(jsonb_build_object('belief', r.belief, 'reason', r.reason) order by r.n)
                          from unnest(v_refused) with ordinality r (belief, reason, n))));
        if jsonb_array_length(v_kept) = 0 then
            -- (the first ten, by the first 8 characters of what was cited: the result names them all)
            update beliefdb.review_item i
               set reason = 'No source-backed answer yet: no reason it cited was kept (rule 19); refused: '
                            || (select string_agg(left(r.belief, 8) || ' ' || r.reason, '; ' order by r.n)
                                  from unnest(v_refused) with ordinality r (belief, reason, n) where r.n <= 10)
                            || case when cardinality(v_refused) > 10
                                    then '; and ' || (cardinality(v_refused) - 10) || ' more' else '' end
             where i.workspace_id = v_ws and i.kind = 'decision_flagged' and i.node = v_recorded.id and i.status = 'open';
        end if;
    end if;
    return row(v_recorded.id, v_recorded.status, p_run, v_refused, false)::beliefdb.run_decision;
end
$$;
comment on function beliefdb.decide_in_run(uuid, text, jsonb, text) is 'Record a decision of a run citing only production beliefs the run read and that are current (rules 19, 15): others are refused and named';
