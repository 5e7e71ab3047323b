-- beliefdb: belief lifecycle and governance (truth rules 9 and 14): decay of confidence over
-- time, outcomes of what was decided and done, and forgetting that leaves nothing behind.

-- Recompute every belief's confidence of the bound workspace in one statement, as of p_now
-- (default: the clock). Half-lives apply from each belief's last verification; beliefs under
-- the retrieval threshold are low confidence (demoted and labelled, never deleted); new
-- evidence re-verifies them. A scheduler such as pg_cron can call it.
create or replace function beliefdb.decay(p_now timestamptz default null, p_action text default 'decay')
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_clock text := current_setting('beliefdb.now', true);
    v_low real := coalesce((select p.weight from beliefdb.confidence_policy p
                             where p.factor = 'retrieval' and p.key = 'low_confidence'), 0.3);
    v_result jsonb;
begin
    if v_ws is null then
        raise exception 'no workspace is bound' using errcode = 'BD004';
    end if;
    perform beliefdb.lock_workspace();
    if p_now is not null then
        perform set_config('beliefdb.now', p_now::text, true);
    end if;
    with computed as (
        select b.id, b.confidence as old, least(1, greatest(0, f.weight))::real as new
          from beliefdb.belief b
          cross join lateral (select cf.weight from beliefdb.confidence_factors(v_ws, b.id) cf
                               where cf.factor = 'confidence') f
         where b.workspace_id = v_ws
    ),
    changed as (
        update beliefdb.belief b
           set confidence = c.new
          from computed c
         where b.workspace_id = v_ws and b.id = c.id and b.confidence is distinct from c.new
        returning c.old, c.new
    )
    select jsonb_build_object(
        'now', beliefdb.clock(),
        'beliefs', (select count(*) from computed),
        'changed', (select count(*) from changed),
        'lowered', (select count(*) from changed where new < old),
        'raised', (select count(*) from changed where new > old),
        'became_low', (select count(*) from changed where old >= v_low and new < v_low),
        'recovered', (select count(*) from changed where old < v_low and new >= v_low),
        'low_confidence', (select count(*) from computed where new < v_low),
        'threshold', v_low)
      into v_result;
    perform beliefdb.audit(p_action, v_result);
    perform set_config('beliefdb.now', coalesce(v_clock, ''), true);
    return v_result;
end
$$;
comment on function beliefdb.decay(timestamptz, text) is 'Recompute all confidences of the bound workspace as of a moment (half-lives, policy weights); counts of what moved';

-- Record what actually happened after a decision or an action (audited).
create or replace function beliefdb.record_outcome(p_node uuid, p_outcome text, p_note text default null)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_kind beliefdb.node_kind;
    v_id uuid;
begin
    perform beliefdb.lock_workspace();
    select n.kind into v_kind from beliefdb.node n where n.workspace_id = v_ws and n.id = p_node;
    if v_kind is null then
        raise exception 'unknown decision or action %', p_node using errcode = 'BD004';
    elsif v_kind not in ('decision', 'action') then
        raise exception 'outcomes are recorded for decisions and actions, not a %', v_kind using errcode = 'BD005';
    elsif p_outcome is null or p_outcome not in ('succeeded', 'failed', 'rolled_back', 'disputed') then
        raise exception 'outcome must be succeeded, failed, rolled_back or disputed' using errcode = 'BD005';
    end if;
    insert into beliefdb.outcome (workspace_id, node, outcome, note) values (v_ws, p_node, p_outcome, p_note)
    returning id into v_id;
    perform beliefdb.audit('outcome', jsonb_build_object('node', p_node, 'kind', v_kind, 'outcome', p_outcome));
    return jsonb_build_object('id', v_id, 'node', p_node, 'kind', v_kind, 'outcome', p_outcome);
end
$$;
comment on function beliefdb.record_outcome(uuid, text, text) is 'Record the outcome of a decision or action: succeeded, failed, rolled_back or disputed';

-- The latest outcome of a node, if any.
create or replace function beliefdb.latest_outcome(p_workspace_id uuid, p_node uuid) returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select jsonb_build_object('outcome', o.outcome, 'note', o.note, 'at', o.recorded_at, 'by', o.recorded_by)
      from beliefdb.outcome o
     where o.workspace_id = p_workspace_id and o.node = p_node
     order by o.recorded_at desc, o.id desc
     limit 1
$$;
comment on function beliefdb.latest_outcome(uuid, uuid) is 'The latest recorded outcome of a decision or action (null when none)';

-- Forget (rule 14): a source (its text, versions, fragments), a subject's beliefs, or one
-- belief; with them their evidence, embeddings, relations, and every belief left without
-- support. Decisions that lose their last support are flagged (rule 4). The audit chain keeps
-- the statement events' keys and hashes; payloads that name a forgotten source are redacted
-- (their hashes stay, so the chain still verifies). p_preview: counts only, nothing written.
create or replace function beliefdb.forget(p_target text, p_id uuid, p_subject text default null,
                                           p_preview boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_name text;
    v_seeds uuid[];
    v_beliefs uuid[];
    v_gone uuid[];
    v_consequents uuid[];
    v_versions integer := 0;
    v_changes jsonb := '{"flagged": [], "held": [], "stopped_holding": [], "started_holding": []}';
    v_result jsonb;
begin
    perform beliefdb.lock_workspace();
    if p_target = 'source' then
        select s.name into v_name from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        if v_name is null then
            raise exception 'unknown source %', p_id using errcode = 'BD004';
        end if;
        v_seeds := beliefdb.expand_targets(v_ws, array[p_id]);
        select count(*) into v_versions from beliefdb.source_version v where v.workspace_id = v_ws and v.source_id = p_id;
    elsif p_target = 'subject' then
        v_seeds := array(select b.id from beliefdb.belief b where b.workspace_id = v_ws and b.subject = p_subject);
        if cardinality(v_seeds) = 0 then
            raise exception 'no belief has subject %', p_subject using errcode = 'BD004';
        end if;
    elsif p_target = 'belief' then
        v_seeds := array(select b.id from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_id);
        if cardinality(v_seeds) = 0 then
            raise exception 'unknown belief %', p_id using errcode = 'BD004';
        end if;
    else
        raise exception 'forget a source, a subject or a belief, not %', p_target using errcode = 'BD005';
    end if;

    -- forgetting a belief is its owner's call (a source is shared evidence: what it leaves
    -- without support goes by rule 14, whoever owns it)
    if p_target in ('subject', 'belief') and not p_preview then
        perform beliefdb.require_owner(v_ws, x.id, 'forget it') from unnest(v_seeds) x (id);
    end if;

    -- what is left without support once the targets are gone
    if cardinality(v_seeds) > 0 then
        perform beliefdb.evaluate(v_ws, v_seeds, v_seeds);
    else
        perform beliefdb.prepare_evaluation();
    end if;
    v_beliefs := array(
        select e.id from pg_temp.beliefdb_evaluation e
         where e.kind = 'belief' and (e.id = any(v_seeds) or not e.holds));
    v_gone := v_seeds || array(select x from unnest(v_beliefs) x where not (x = any(v_seeds)));
    -- a correction of a forgotten belief goes with it; the reviewer's replacement stands on the
    -- reviewer's own fragment
    v_gone := v_gone || array(select c.id from beliefdb.correction c
                               where c.workspace_id = v_ws and c.belief_id = any(v_gone));
    v_result := jsonb_build_object(
        'target', p_target, 'versions', v_versions,
        'fragments', (select count(*) from beliefdb.fragment f where f.workspace_id = v_ws and f.id = any(v_gone)),
        'beliefs', cardinality(v_beliefs),
        'evidence', (select count(*) from beliefdb.evidence e
                      where e.workspace_id = v_ws and (e.belief_id = any(v_gone) or e.fragment_id = any(v_gone))),
        'embeddings', (select count(*) from beliefdb.belief_embedding m
                        where m.workspace_id = v_ws and m.belief_id = any(v_gone)),
        'would_flag', coalesce((select jsonb_agg(e.id) from pg_temp.beliefdb_evaluation e
                                 join beliefdb.decision d on d.workspace_id = v_ws and d.id = e.id
                                where e.kind = 'decision' and not e.holds and d.status = 'active'), '[]'));
    if p_preview then
        return v_result || jsonb_build_object('preview', true);
    end if;

    -- reasons that cite anything forgotten go with it (a reason never outlives an antecedent)
    with gone_reason as (
        delete from beliefdb.justification j
         where j.workspace_id = v_ws
           and exists (select from beliefdb.justification_antecedent a
                        where a.workspace_id = j.workspace_id and a.justification_id = j.id and a.antecedent = any(v_gone))
        returning j.consequent
    )
    select array(select distinct g.consequent from gone_reason g where not (g.consequent = any(v_gone)))
      into v_consequents;
    -- what a forgotten belief superseded or was in conflict with stands on its own again
    v_consequents := v_consequents || array(
        select case when r.from_belief = any(v_gone) then r.to_belief else r.from_belief end
          from beliefdb.relation r
         where r.workspace_id = v_ws and r.kind in ('supersedes', 'conflicts_with')
           and (r.from_belief = any(v_gone)) <> (r.to_belief = any(v_gone)));
    delete from beliefdb.node n where n.workspace_id = v_ws and n.id = any(v_gone);
    if p_target = 'source' then
        delete from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        perform beliefdb.audit_redact_source(v_name);
    end if;
    if cardinality(v_consequents) > 0 then
        v_changes := beliefdb.propagate(v_ws, v_consequents);
    end if;
    v_result := v_result || jsonb_build_object('flagged', v_changes -> 'flagged', 'held', v_changes -> 'held',
                                               'preview', false);
    perform beliefdb.audit('forget', jsonb_build_object(
        'target', p_target,
        'sha256', encode(sha256(convert_to(coalesce(v_name, p_subject, p_id::text), 'UTF8')), 'hex'),
        'beliefs', cardinality(v_beliefs), 'fragments', v_result -> 'fragments', 'flagged', v_changes -> 'flagged'));
    return v_result;
end
$$;
comment on function beliefdb.forget(text, uuid, text, boolean) is 'Forget a source, a subject''s beliefs or a belief, and every belief left without support; audit keeps hashes only';

-- Redact the payloads of the bound workspace's audit events that name a forgotten source (only
-- once the source is gone): the payload hash stays in the chain, so it still verifies.
create or replace function beliefdb.audit_redact_source(p_name text) returns integer
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_count integer;
begin
    if exists (select from beliefdb.source s where s.workspace_id = v_ws and s.name = p_name) then
        raise exception 'source % still exists: forget it first', p_name using errcode = 'BD005';
    end if;
    update beliefdb.audit_event e set payload = null
     where e.workspace_id = v_ws and e.payload is not null and e.payload ->> 'source' = p_name;
    get diagnostics v_count = row_count;
    return v_count;
end
$$;
comment on function beliefdb.audit_redact_source(text) is 'Redact audit payloads naming a forgotten source of the bound workspace (hashes stay)';
