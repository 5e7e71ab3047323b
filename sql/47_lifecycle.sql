-- beliefdb: belief lifecycle and governance (truth rules 9 and 14): decay of confidence over
-- time, outcomes of what was decided and done, and forgetting that leaves nothing behind.

-- Recompute every belief's confidence of the bound workspace, as of p_now (default: the clock).
-- Half-lives apply from each belief's last verification; beliefs under the retrieval threshold
-- are low confidence (demoted and labelled, never deleted); new evidence re-verifies them. One
-- statement computes them all; a derived belief reads what it is derived from as stored, so the
-- beliefs derived from those that moved are computed again until nothing moves: one run reaches
-- the fixpoint. A scheduler such as pg_cron can call it. p_preview: the same report, exactly, and
-- nothing written (the run happens in a subtransaction that is rolled back).
create or replace function beliefdb.decay(p_now timestamptz default null, p_action text default 'decay',
                                          p_preview boolean default false)
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
    v_old_ids uuid[];
    v_old real[];
    v_moved uuid[];
    v_round integer;
    v_result jsonb;
begin
    if v_ws is null then
        raise exception 'no workspace is bound' using errcode = 'BD003';
    end if;
    if p_preview then
        return beliefdb._dry_run('select beliefdb.decay(($1 ->> ''now'')::timestamptz, $1 ->> ''action'')',
                                jsonb_build_object('now', p_now, 'action', p_action))
               || jsonb_build_object('preview', true);
    end if;
    perform beliefdb.lock_workspace();
    if p_now is not null then
        perform set_config('beliefdb.now', p_now::text, true);
    end if;
    select coalesce(array_agg(b.id), '{}'), coalesce(array_agg(b.confidence), '{}') into v_old_ids, v_old
      from beliefdb.belief b where b.workspace_id = v_ws;
    with computed as (
        select b.id, least(1, greatest(0, f.weight))::real as new
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
        returning b.id
    )
    select coalesce(array_agg(c.id), '{}') into v_moved from changed c;
    for v_round in 1..20 loop
        v_moved := beliefdb._refresh_confidence(v_ws, array(
            select distinct a.consequent
              from beliefdb.justification_antecedent a
              join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.consequent
             where a.workspace_id = v_ws and a.antecedent = any(v_moved) and a.edge_kind = 'derives'));
        exit when cardinality(v_moved) = 0;
    end loop;
    with compared as (
        select o.old, b.confidence as new
          from unnest(v_old_ids, v_old) as o (id, old)
          join beliefdb.belief b on b.workspace_id = v_ws and b.id = o.id
    )
    select jsonb_build_object(
        'now', beliefdb.clock(),
        'beliefs', count(*),
        'changed', count(*) filter (where c.new is distinct from c.old),
        'lowered', count(*) filter (where c.new < c.old),
        'raised', count(*) filter (where c.new > c.old),
        'became_low', count(*) filter (where c.old >= v_low and c.new < v_low),
        'recovered', count(*) filter (where c.old < v_low and c.new >= v_low),
        'low_confidence', count(*) filter (where c.new < v_low),
        'threshold', v_low)
      into v_result
      from compared c;
    perform beliefdb.audit(p_action, v_result);
    perform set_config('beliefdb.now', coalesce(v_clock, ''), true);
    return v_result || jsonb_build_object('preview', false);
end
$$;
comment on function beliefdb.decay(timestamptz, text, boolean) is 'Recompute all confidences of the bound workspace as of a moment (half-lives, policy weights) to their fixpoint; counts of what moved (p_preview: nothing written)';

-- Process what expired (rule 16): the bound workspace's beliefs whose valid time ended since the
-- last change stop being current, and what rests on them stops holding: decisions that lose their
-- last support are flagged and their actions held, as for any change. Every change of the
-- workspace does this first (propagate), beliefdb's commands call it before they read, and a
-- scheduler such as pg_cron may call it (e.g. every minute). Audited when anything expired. The
-- report: how many expired, their ids, and the change report (beliefdb._changes).
create or replace function beliefdb.expire() returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_due uuid[];
    v_changes jsonb;
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003';
    end if;
    v_due := beliefdb.due_to_expire(v_ws);
    if cardinality(v_due) = 0 then
        return jsonb_build_object('expired', 0, 'beliefs', '[]'::jsonb, 'now', beliefdb.clock(),
                                  'changes', beliefdb._empty_changes());
    end if;
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    -- (read again under the lock: a concurrent writer may have processed them)
    v_due := beliefdb.due_to_expire(v_ws);
    v_changes := beliefdb.propagate(v_ws, v_due);
    if cardinality(v_due) > 0 then
        perform beliefdb.audit('expire', jsonb_build_object(
            'expired', cardinality(v_due), 'beliefs', to_jsonb(v_due), 'flagged', v_changes -> 'flagged',
            'held', v_changes -> 'held'));
    end if;
    return jsonb_build_object('expired', cardinality(v_due), 'beliefs', to_jsonb(v_due), 'now', beliefdb.clock(),
                              'changes', v_changes);
end
$$;
comment on function beliefdb.expire() is 'Process the bound workspace''s beliefs whose valid time ended: not current any more, and what rests on them re-evaluated';

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
    v_status text;
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
    -- an action ends as its outcome says (a dispute changes nothing); a held or cancelled one
    -- was not to be carried out
    if v_kind = 'action' then
        select a.status into v_status from beliefdb.action a where a.workspace_id = v_ws and a.id = p_node;
        if v_status in ('held', 'cancelled') and p_outcome <> 'disputed' then
            raise exception 'action % is %: it was not to be carried out (its decision %)', p_node, v_status,
                case v_status when 'held' then 'needs review' else 'was rejected' end using errcode = 'BD005';
        end if;
        update beliefdb.action a
           set status = case p_outcome when 'succeeded' then 'done' when 'failed' then 'failed'
                                       when 'rolled_back' then 'rolled_back' else a.status end
         where a.workspace_id = v_ws and a.id = p_node
        returning a.status into v_status;
    end if;
    insert into beliefdb.outcome (workspace_id, node, outcome, note) values (v_ws, p_node, p_outcome, p_note)
    returning id into v_id;
    perform beliefdb.audit('outcome', jsonb_build_object('node', p_node, 'kind', v_kind, 'outcome', p_outcome));
    return jsonb_build_object('id', v_id, 'node', p_node, 'kind', v_kind, 'outcome', p_outcome, 'status', v_status);
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
-- support. Decisions that lose their last support are flagged (rule 4). Forgetting a subject or a
-- belief also takes its quotes out of the source texts they come from: every occurrence is masked
-- (same length, so the offsets of all other evidence stay valid), recorded in beliefdb.redaction
-- by offsets only. The audit chain keeps the events' keys and hashes; payloads that name a
-- forgotten source are redacted (their hashes stay, so the chain still verifies). The planner
-- statistics of the tables that held the text are gathered again, so pg_statistic does not keep
-- it. p_preview: the same report, exactly (the forget runs in a subtransaction that is rolled back).
create or replace function beliefdb.forget(p_target text, p_id uuid, p_subject text default null,
                                           p_preview boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_result jsonb;
begin
    if p_preview then
        return beliefdb._dry_run('select beliefdb.forget($1 ->> ''target'', ($1 ->> ''id'')::uuid, $1 ->> ''subject'')',
                                jsonb_build_object('target', p_target, 'id', p_id, 'subject', p_subject))
               || jsonb_build_object('preview', true);
    end if;
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    v_result := beliefdb._forget_core(v_ws, p_target, p_id, p_subject);
    perform beliefdb._analyze_text_tables();
    return v_result || jsonb_build_object('preview', false);
end
$$;
comment on function beliefdb.forget(text, uuid, text, boolean) is 'Forget a source, a subject''s beliefs or a belief, every belief left without support, and their quotes in source texts; audit keeps hashes only';

-- The change forget makes (see forget): owner checks, deletions, redactions, propagation, audit.
create or replace function beliefdb._forget_core(p_workspace_id uuid, p_target text, p_id uuid, p_subject text)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := p_workspace_id;
    v_name text;
    v_seeds uuid[];
    v_beliefs uuid[];
    v_gone uuid[];
    v_quotes text[] := '{}';
    v_sources uuid[] := '{}';
    v_consequents uuid[];
    v_versions integer := 0;
    v_redacted integer := 0;
    v_changes jsonb := beliefdb._empty_changes();
    v_result jsonb;
begin
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
    if p_target in ('subject', 'belief') then
        perform beliefdb._require_owner(v_ws, x.id, 'forget it') from unnest(v_seeds) x (id);
    end if;

    -- what is left without support once the targets are gone
    if cardinality(v_seeds) > 0 then
        perform beliefdb.evaluate(v_ws, v_seeds, v_seeds);
    else
        perform beliefdb._prepare_evaluation();
    end if;
    -- (what did not hold before was not left without support by this: it stays, as it was)
    v_beliefs := array(
        select e.id from pg_temp.beliefdb_evaluation e
         where e.kind = 'belief' and (e.id = any(v_seeds) or (e.held and not e.holds)));
    v_gone := v_seeds || array(select x from unnest(v_beliefs) x where not (x = any(v_seeds)));
    -- a correction of a forgotten belief goes with it; the reviewer's replacement stands on the
    -- reviewer's own fragment
    v_gone := v_gone || array(select c.id from beliefdb.correction c
                               where c.workspace_id = v_ws and c.belief_id = any(v_gone));
    -- a forgotten subject's or belief's quotes, and the sources they are in (their text is masked)
    if p_target in ('subject', 'belief') then
        select coalesce(array_agg(distinct e.quote), '{}'), coalesce(array_agg(distinct v.source_id), '{}')
          into v_quotes, v_sources
          from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
         where e.workspace_id = v_ws and e.belief_id = any(v_seeds);
    end if;
    v_result := jsonb_build_object(
        'target', p_target, 'versions', v_versions,
        'fragments', (select count(*) from beliefdb.fragment f where f.workspace_id = v_ws and f.id = any(v_gone)),
        'beliefs', cardinality(v_beliefs),
        'evidence', (select count(*) from beliefdb.evidence e
                      where e.workspace_id = v_ws and (e.belief_id = any(v_gone) or e.fragment_id = any(v_gone))),
        'embeddings', (select count(*) from beliefdb.belief_embedding m
                        where m.workspace_id = v_ws and m.belief_id = any(v_gone)));

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
    perform beliefdb._note_changes(v_ws, v_gone || v_consequents);
    delete from beliefdb.node n where n.workspace_id = v_ws and n.id = any(v_gone);
    if p_target = 'source' then
        delete from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        perform beliefdb._audit_redact_source(v_name);
    end if;
    if cardinality(v_quotes) > 0 then
        v_redacted := beliefdb._redact_quotes(v_ws, v_sources, v_quotes,
                                             case p_target when 'subject' then 'forgotten subject'
                                                           else 'forgotten belief' end);
    end if;
    if cardinality(v_consequents) > 0 then
        v_changes := beliefdb.propagate(v_ws, v_consequents);
    else
        v_changes := beliefdb._changes(v_ws);
    end if;
    v_result := v_result || jsonb_build_object(
        'redacted', v_redacted,
        'would_flag', v_changes -> 'flagged',  -- (the preview's name for it)
        'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'changes', v_changes);
    perform beliefdb.audit('forget', jsonb_build_object(
        'target', p_target,
        'sha256', encode(sha256(convert_to(coalesce(v_name, p_subject, p_id::text), 'UTF8')), 'hex'),
        'beliefs', cardinality(v_beliefs), 'fragments', v_result -> 'fragments', 'redacted', v_redacted,
        'flagged', v_changes -> 'flagged'));
    return v_result;
end
$$;
comment on function beliefdb._forget_core(uuid, text, uuid, text) is 'The change of forget: deletions, redactions, propagation and audit (forget checks and previews)';

-- A text with the given character spans ([start, end), 0-based) replaced by as many U+2588 as
-- they are long: the text of a redacted source version, whose other offsets stay valid.
create or replace function beliefdb._masked(p_text text, p_spans int4range[]) returns text
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_span int4range;
    v_text text := p_text;
begin
    foreach v_span in array coalesce(p_spans, '{}') loop
        v_text := overlay(v_text placing repeat(U&'\2588', upper(v_span) - lower(v_span))
                          from lower(v_span) + 1 for upper(v_span) - lower(v_span));
    end loop;
    return v_text;
end
$$;
comment on function beliefdb._masked(text, int4range[]) is 'A text with character spans replaced by as many U+2588 (same length: other offsets stay valid)';

-- Mask every occurrence of some quotes in every version of some sources (and in the texts
-- proposed for them): the source text, the fragments over it and their evidence all change
-- together, each span recorded in beliefdb.redaction. Returns how many spans were masked.
create or replace function beliefdb._redact_quotes(p_workspace_id uuid, p_sources uuid[], p_quotes text[],
                                                  p_reason text) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version record;
    v_spans int4range[];
    v_count integer := 0;
begin
    for v_version in
        select v.id, v.content from beliefdb.source_version v
         where v.workspace_id = p_workspace_id and v.source_id = any(p_sources)
    loop
        v_spans := beliefdb._occurrences(v_version.content, p_quotes);
        continue when cardinality(v_spans) = 0;
        insert into beliefdb.redaction (workspace_id, source_version_id, start_offset, end_offset, reason)
        select p_workspace_id, v_version.id, lower(x), upper(x), p_reason from unnest(v_spans) x;
        v_count := v_count + cardinality(v_spans);
        update beliefdb.source_version v set content = beliefdb._masked(v.content, v_spans)
         where v.workspace_id = p_workspace_id and v.id = v_version.id;
        -- every fragment over a masked span, then the evidence quoting it
        update beliefdb.fragment f
           set text = substr(v.content, f.start_offset + 1, f.end_offset - f.start_offset)
          from beliefdb.source_version v
         where f.workspace_id = p_workspace_id and f.source_version_id = v_version.id
           and v.workspace_id = f.workspace_id and v.id = f.source_version_id
           and int4range(f.start_offset, f.end_offset) && any(v_spans);
        update beliefdb.evidence e
           set quote = f.text
          from beliefdb.fragment f
         where e.workspace_id = p_workspace_id and f.workspace_id = e.workspace_id and f.id = e.fragment_id
           and f.source_version_id = v_version.id and e.quote <> f.text;
    end loop;
    update beliefdb.review_item r
       set proposal = jsonb_set(r.proposal, '{content}', to_jsonb(beliefdb._masked(
               r.proposal ->> 'content', beliefdb._occurrences(r.proposal ->> 'content', p_quotes))))
     where r.workspace_id = p_workspace_id and r.kind = 'version_proposed' and r.source_id = any(p_sources)
       and cardinality(beliefdb._occurrences(r.proposal ->> 'content', p_quotes)) > 0;
    return v_count;
end
$$;
comment on function beliefdb._redact_quotes(uuid, uuid[], text[], text) is 'Mask every occurrence of quotes in the versions of sources, their fragments and evidence; record the spans';

-- Every span of a text where one of the quotes occurs (overlapping occurrences included).
create or replace function beliefdb._occurrences(p_text text, p_quotes text[]) returns int4range[]
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_quote text;
    v_at integer;
    v_from integer;
    v_spans int4range[] := '{}';
begin
    foreach v_quote in array coalesce(p_quotes, '{}') loop
        continue when v_quote is null or v_quote = '';
        v_from := 1;
        loop
            v_at := strpos(substr(p_text, v_from), v_quote);
            exit when v_at = 0;
            v_spans := v_spans || int4range(v_from + v_at - 2, v_from + v_at - 2 + length(v_quote));
            v_from := v_from + v_at;
        end loop;
    end loop;
    return v_spans;
end
$$;
comment on function beliefdb._occurrences(text, text[]) is 'Every character span [start, end) of a text where one of some quotes occurs';

-- Gather planner statistics again for the columns that hold text: what was forgotten must not
-- stay in pg_statistic's sampled values (rows this transaction deleted or masked are not sampled).
create or replace function beliefdb._analyze_text_tables() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    analyze beliefdb.source (name), beliefdb.source_version (content, label, path), beliefdb.fragment (text),
            beliefdb.evidence (quote), beliefdb.belief (statement, subject, attribute, value, scope, search),
            beliefdb.correction (new_statement, new_value, reason), beliefdb.review_item (reason, proposal),
            beliefdb.audit_event (payload), beliefdb.relation (reason);
end
$$;
comment on function beliefdb._analyze_text_tables() is 'Gather statistics again on every text column, so pg_statistic keeps nothing forgotten';

-- Redact the payloads of the bound workspace's audit events that name a forgotten source (only
-- once the source is gone): the payload hash stays in the chain, so it still verifies.
create or replace function beliefdb._audit_redact_source(p_name text) returns integer
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
comment on function beliefdb._audit_redact_source(text) is 'Redact audit payloads naming a forgotten source of the bound workspace (hashes stay)';
