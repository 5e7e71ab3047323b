-- beliefdb: beliefs (docs/rules.md, rules 1, 3, 8): storing a text and its claims, what was
-- believed at a moment, and finding a belief or node by id.
-- Python reads files and proposes claims with offsets; everything that decides what is
-- true is in the database (internal/36_claims.sql, internal/34_conflicts.sql).

-- Ingest one text as a version of a named source: one call, one transaction, one report.
-- p_fragments: [{"start", "end"}]; p_claims: see _add_claims (both checked first, beliefdb._check_fragments and
-- _check_claims: a malformed one is BD005 naming it, and nothing is written). A source belongs to the principal
-- that first ingested it (rule 17): anyone else's new text for it (or a change of its authority
-- or label) changes nothing and waits in the review queue for the owner (proposed, review_item,
-- owner). The same bytes as a version the source has are a no-op (rule 18), see ingest_version_core.
create or replace function beliefdb.ingest_version(
    p_source text, p_content text,
    p_origin beliefdb.origin_type default null, p_authority beliefdb.authority default null,
    p_provenance beliefdb.provenance default null, p_label text default null, p_path text default null,
    p_fragments jsonb default '[]', p_claims jsonb default '[]', p_rejected jsonb default '[]'
) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid;
    v_opened boolean;
    v_outcome jsonb;
begin
    -- what was given, before anything is written: invalid_input (BD005) naming the claim or fragment
    perform beliefdb._check_fragments(p_fragments, p_content);
    perform beliefdb._check_claims(p_claims, p_rejected);
    perform beliefdb.lock_workspace();
    v_ws := beliefdb._bound_workspace();
    -- one audit event for the whole ingest: its statements' events become entries of it (rows)
    v_opened := beliefdb._audit_open(v_ws);
    v_outcome := beliefdb._ingest_text(v_ws, p_source, jsonb_build_object(
        'content', p_content, 'origin', p_origin, 'authority', p_authority, 'provenance', p_provenance,
        'label', p_label, 'path', p_path, 'fragments', coalesce(p_fragments, '[]'), 'claims', coalesce(p_claims, '[]'),
        'rejected', coalesce(p_rejected, '[]')));
    if (v_outcome ->> 'new_version')::boolean or coalesce((v_outcome ->> 'appended')::boolean, false) then
        perform beliefdb._audit_finish(v_opened, 'ingest', jsonb_build_object(
            'source', v_outcome ->> 'source', 'version', v_outcome -> 'version',
            -- (of the text as stored, masked where something was forgotten: its version's sha256,
            -- which _audit_append keys to the event as text_hmac)
            'text_sha256', (select encode(v.sha256, 'hex') from beliefdb.source_version v
                             where v.workspace_id = v_ws and v.id = (v_outcome ->> 'version_id')::uuid),
            'accepted', jsonb_array_length(v_outcome -> 'accepted'),
            'rejected', jsonb_array_length(v_outcome -> 'rejected'),
            'superseded', v_outcome -> 'superseded', 'conflicts', v_outcome -> 'conflicts')
            -- (a conversation grown in place by turns: its version grew, as append_turn's do)
            || case when (v_outcome ->> 'appended')::boolean then '{"appended": true}'::jsonb else '{}' end);
    elsif jsonb_array_length(v_outcome -> 'accepted') + jsonb_array_length(v_outcome -> 'corroborated') > 0 then
        perform beliefdb._audit_finish(v_opened, 'claims', jsonb_build_object(
            'source', v_outcome ->> 'source', 'version', v_outcome -> 'version',
            'accepted', jsonb_array_length(v_outcome -> 'accepted'),
            'corroborated', jsonb_array_length(v_outcome -> 'corroborated')));
    else
        -- no new text and no claim: an event only if it still changed rows (a proposal for the
        -- source's owner, the rule-8 outcome of claims already recorded)
        perform beliefdb._audit_finish(v_opened, 'ingest.unchanged', jsonb_build_object(
            'source', v_outcome ->> 'source', 'version', v_outcome -> 'version',
            'proposed', coalesce((v_outcome ->> 'proposed')::boolean, false)), true);
    end if;
    return v_outcome;
end
$$;
comment on function beliefdb.ingest_version(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)
    is 'Store a new version of a source with its fragments and claims, and settle what it changes (another principal''s source: a proposal to its owner); jsonb: the ingest report holds six lists of different records';

-- What ingesting a text would change, exactly (the ingest runs in a subtransaction that is rolled
-- back): the same report as ingest_version (a proposal, for another principal's source). The review
-- item a proposal would open is rolled back with the rest, and the ingest would open another: the
-- preview names none (review_item null, a note says so), only an item of the same proposal that is
-- open already, which the ingest would find.
create or replace function beliefdb.ingest_preview(
    p_source text, p_content text,
    p_origin beliefdb.origin_type default null, p_authority beliefdb.authority default null,
    p_provenance beliefdb.provenance default null, p_label text default null, p_path text default null,
    p_fragments jsonb default '[]', p_claims jsonb default '[]', p_rejected jsonb default '[]'
) returns jsonb
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select case when x.r ->> 'review_item' is not null
                     and not exists (select from beliefdb.review_item i
                                      where i.workspace_id = beliefdb.current_workspace_id()
                                        and i.id = (x.r ->> 'review_item')::uuid)
                then x.r || jsonb_build_object(
                         'review_item', null, 'changes', (x.r -> 'changes') || '{"review_item": null}',
                         'note', pg_catalog.format('%s belongs to %s: the ingest would open a review item for %s to approve',
                                                   x.r ->> 'source', x.r ->> 'owner', x.r ->> 'owner'))
                else x.r end
           || jsonb_build_object('preview', true)
      from (select beliefdb._dry_run(
                'select beliefdb.ingest_version($1 ->> ''source'', $1 ->> ''content'', ($1 ->> ''origin'')::beliefdb.origin_type, ($1 ->> ''authority'')::beliefdb.authority, ($1 ->> ''provenance'')::beliefdb.provenance, $1 ->> ''label'', $1 ->> ''path'', $1 -> ''fragments'', $1 -> ''claims'', $1 -> ''rejected'')',
                jsonb_build_object('source', p_source, 'content', p_content, 'origin', p_origin, 'authority', p_authority,
                                   'provenance', p_provenance, 'label', p_label, 'path', p_path, 'fragments', p_fragments,
                                   'claims', p_claims, 'rejected', p_rejected)) as r) x
$$;
comment on function beliefdb.ingest_preview(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)
    is 'Exactly what ingesting a text would change, computed in a rolled-back subtransaction; jsonb: the ingest report holds six lists of different records';

-- Claims against the version of a source in force (for remember() without new text): the latest
-- version not retracted of a source not retracted (rule 2); refused (BD005) when there is none.
create or replace function beliefdb.add_claims_to_source(p_source text, p_claims jsonb, p_rejected jsonb default '[]')
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_version_id uuid;
    v_retracted boolean;
    v_opened boolean;
    v_outcome jsonb;
begin
    perform beliefdb._check_claims(p_claims, p_rejected);
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    -- the version in force (rule 2, beliefdb.in_force): a later version retracted is not it
    select s.retracted_at is not null, v.id into v_retracted, v_version_id
      from beliefdb.source s
      left join beliefdb.source_version v
        on v.workspace_id = s.workspace_id and v.source_id = s.id and beliefdb.in_force(v.workspace_id, v.id)
     where s.workspace_id = v_ws and s.name = p_source;
    if not found then
        raise exception 'unknown source %', p_source using errcode = 'BD004';
    elsif v_retracted then
        raise exception 'source % is retracted: restore it first, or give the text with the belief', p_source
            using errcode = 'BD005';
    elsif v_version_id is null then
        raise exception 'source % has no version in force: every version of it is retracted (restore one first, or give the text with the belief)',
            p_source using errcode = 'BD005';
    end if;
    v_opened := beliefdb._audit_open(v_ws);
    v_outcome := beliefdb._add_claims(v_ws, v_version_id, p_claims, p_rejected);
    perform beliefdb._audit_finish(v_opened, 'remember', jsonb_build_object(
        'source', p_source, 'accepted', jsonb_array_length(v_outcome -> 'accepted'),
        'rejected', jsonb_array_length(v_outcome -> 'rejected')));
    return beliefdb._ingest_report(v_ws, v_outcome, v_outcome -> 'changes');
end
$$;
comment on function beliefdb.add_claims_to_source(text, jsonb, jsonb) is 'Accept gated claims against the version of a source in force; jsonb: the ingest report holds six lists of different records';

-- Whether a source version was in force at a moment (rule 2, read back in time): recorded by then,
-- neither it nor its source retracted then, and no later version of the source recorded by then and
-- not retracted then. What was retracted then comes from beliefdb.retraction_period.
create or replace function beliefdb.in_force_at(p_workspace_id uuid, p_source_version_id uuid, p_at timestamptz)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select v.recorded_at <= p_at
           and not exists (
                select from beliefdb.retraction_period r
                 where r.workspace_id = v.workspace_id and (r.source_version_id = v.id or r.source_id = v.source_id)
                   and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
           and not exists (
                select from beliefdb.source_version later
                 where later.workspace_id = v.workspace_id and later.source_id = v.source_id
                   and later.version > v.version and later.recorded_at <= p_at
                   and not exists (
                        select from beliefdb.retraction_period r
                         where r.workspace_id = later.workspace_id and r.source_version_id = later.id
                           and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at)))
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.id = p_source_version_id
$$;
comment on function beliefdb.in_force_at(uuid, uuid, timestamptz) is 'Whether a source version was in force at a moment: recorded, neither it nor its source retracted, and the latest such, all as of then';

-- The authority a source had at a moment (rule 9, read back in time): the one it had before the first
-- change of it after then (beliefdb.authority_change), else the one it has now.
create or replace function beliefdb.authority_at(p_source beliefdb.source, p_at timestamptz)
returns beliefdb.authority
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce((select c.authority_before from beliefdb.authority_change c
                      where c.workspace_id = p_source.workspace_id and c.source_id = p_source.id
                        and c.changed_at > p_at
                      order by c.changed_at
                      limit 1), p_source.authority)
$$;
comment on function beliefdb.authority_at(beliefdb.source, timestamptz) is 'The authority a source had at a moment: before its first change after then, else its authority now';

-- Whether a node (of any kind) held at a moment (rules 2, 3 and 16, read back in time): the least
-- fixpoint that beliefdb.evaluate_closure computes now, computed again over what the node rests on as it
-- stood then. Premises, as evaluate_closure has them: a fragment not retracted then of a version in force
-- then (in_force_at), a correction, a step that is a user input or has no recorded inputs; and a belief
-- quoted then (as held_at reads its quotes). Every other node holds when one of its reasons without a
-- quote, recorded by then, has every antecedent current then: held, and, for a belief, not superseded
-- then by a belief that held then and its valid time not ended by then. Nothing holds that was not
-- recorded by then or was retracted then (beliefdb.retraction_period). Circular support keeps nothing
-- (least fixpoint). The node's ancestors by those reasons, with what superseded a belief of them then and
-- its own ancestors, are read by one recursive statement; the fixpoint runs in memory by counting, and
-- alternates with supersession as evaluate_closure does (supersession is acyclic and never against a
-- belief's own support). Null for a node the workspace does not have.
create or replace function beliefdb.node_held_at(p_workspace_id uuid, p_node uuid, p_at timestamptz)
returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];
    v_pos jsonb;                  -- each node's position, by id
    v_just uuid[];                -- the reasons, by position
    v_premise boolean[];
    v_blocked boolean[];
    v_expired boolean[];
    v_n integer;
    v_cons integer[];             -- each reason's consequent (position)
    v_need integer[];             -- each reason's antecedents
    v_edge_ant integer[];         -- edges (antecedent position, reason position), by antecedent
    v_edge_just integer[];
    v_first integer[];            -- a node's edges: v_first .. v_last
    v_last integer[];
    v_sup_loser integer[];        -- supersessions in effect then (loser, winner positions), by loser
    v_sup_winner integer[];
    v_sup_first integer[];
    v_sup_last integer[];
    v_held boolean[];
    v_superseded boolean[];
    v_missing integer[];
    v_queue integer[];
    v_head integer;
    v_tail integer;
    v_rounds integer := 0;
    v_changed boolean;
    v_sup boolean;
    v_p integer;
    v_j integer;
    v_c integer;
    v_k integer;
begin
    if p_at is null then
        return null;
    end if;
    -- 1. the node, what it rests on by reasons without a quote recorded by then, and what superseded a
    --    belief of them then, with what that rests on: each node's standing as premise then
    with recursive reach (id) as (
        select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = p_node
        union
        select x.id
          from reach r
         cross join lateral (
                select a.antecedent as id
                  from beliefdb.justification j
                  join beliefdb.justification_antecedent a
                    on a.workspace_id = j.workspace_id and a.justification_id = j.id
                 where j.workspace_id = p_workspace_id and j.consequent = r.id and j.created_at <= p_at
                   and not exists (select from beliefdb.evidence e
                                    where e.workspace_id = j.workspace_id and e.justification_id = j.id)
                union all
                select s.from_belief
                  from beliefdb.relation s
                 where s.workspace_id = p_workspace_id and s.to_belief = r.id and s.kind = 'supersedes'
                   and s.created_at <= p_at and (s.ended_at is null or s.ended_at > p_at)) x
    )
    select array_agg(n.id order by n.id),
           array_agg(case n.kind
                        when 'fragment' then (
                            select beliefdb.in_force_at(f.workspace_id, f.source_version_id, p_at)
                              from beliefdb.fragment f
                             where f.workspace_id = n.workspace_id and f.id = n.id)
                        when 'correction' then true
                        when 'step' then exists (
                            select from beliefdb.step s
                             where s.workspace_id = n.workspace_id and s.id = n.id
                               and (s.kind = 'user_input'
                                    or not exists (select from beliefdb.justification j
                                                    where j.workspace_id = s.workspace_id and j.consequent = s.id)))
                        -- quoted then, as held_at reads a belief's quotes (the same test, written out there)
                        when 'belief' then exists (
                            select from beliefdb.evidence e
                             where e.workspace_id = n.workspace_id and e.belief_id = n.id
                               and e.role = 'supports' and e.created_at <= p_at
                               and (select not exists (
                                               select from beliefdb.retraction_period r
                                                where r.workspace_id = f.workspace_id and r.node_id = f.id
                                                  and r.retracted_at <= p_at
                                                  and (r.restored_at is null or r.restored_at > p_at))
                                           and beliefdb.in_force_at(f.workspace_id, f.source_version_id, p_at)
                                      from beliefdb.fragment f
                                     where f.workspace_id = e.workspace_id and f.id = e.fragment_id))
                        else false
                     end order by n.id),
           array_agg(coalesce(b.recorded_at, n.created_at) > p_at
                     or exists (select from beliefdb.retraction_period r
                                 where r.workspace_id = n.workspace_id and r.node_id = n.id
                                   and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
                     order by n.id),
           array_agg(coalesce(not upper_inf(b.valid_time) and upper(b.valid_time) <= p_at, false) order by n.id)
      into v_ids, v_premise, v_blocked, v_expired
      -- (each node by its key, lateral behind offset 0: joined, the plan hashed every node of the workspace)
      from reach r
     cross join lateral (select n.workspace_id, n.id, n.kind, n.created_at
                           from beliefdb.node n
                          where n.workspace_id = p_workspace_id and n.id = r.id
                         offset 0) as n
      left join lateral (select b.recorded_at, b.valid_time
                           from beliefdb.belief b
                          where b.workspace_id = n.workspace_id and b.id = n.id
                         offset 0) as b on true;
    v_n := coalesce(cardinality(v_ids), 0);
    if v_n = 0 then
        return null;
    end if;
    -- 2. their reasons without a quote recorded by then (consequent, how many antecedents), and the edges
    --    into them by antecedent; the supersessions in effect then, by loser
    --    (each read by its key, lateral behind offset 0, as above; positions from one object built once)
    select coalesce(array_agg(q.pos order by q.pos, q.id), '{}'),
           coalesce(array_agg(q.need order by q.pos, q.id), '{}'),
           coalesce(array_agg(q.id order by q.pos, q.id), '{}')
      into v_cons, v_need, v_just
      from (select c.pos::integer as pos, j.id,
                   (select count(*) from beliefdb.justification_antecedent a
                     where a.workspace_id = p_workspace_id and a.justification_id = j.id)::integer as need
              from unnest(v_ids) with ordinality as c (id, pos)
             cross join lateral (select j.id
                                   from beliefdb.justification j
                                  where j.workspace_id = p_workspace_id and j.consequent = c.id
                                    and j.created_at <= p_at
                                    and not exists (select from beliefdb.evidence e
                                                     where e.workspace_id = j.workspace_id and e.justification_id = j.id)
                                 offset 0) as j) q;
    v_pos := (select jsonb_object_agg(c.id, c.pos) from unnest(v_ids) with ordinality as c (id, pos));
    select coalesce(array_agg(x.ant order by x.ant, x.jpos), '{}'),
           coalesce(array_agg(x.jpos order by x.ant, x.jpos), '{}')
      into v_edge_ant, v_edge_just
      from (select (v_pos ->> a.antecedent::text)::integer as ant, q.jpos::integer as jpos
              from unnest(v_just) with ordinality as q (id, jpos)
             cross join lateral (select a.antecedent
                                   from beliefdb.justification_antecedent a
                                  where a.workspace_id = p_workspace_id and a.justification_id = q.id
                                 offset 0) as a) x;
    select coalesce(array_agg(x.loser order by x.loser, x.winner), '{}'),
           coalesce(array_agg(x.winner order by x.loser, x.winner), '{}')
      into v_sup_loser, v_sup_winner
      from (select l.pos::integer as loser, (v_pos ->> s.from_belief::text)::integer as winner
              from unnest(v_ids) with ordinality as l (id, pos)
             cross join lateral (select s.from_belief
                                   from beliefdb.relation s
                                  where s.workspace_id = p_workspace_id and s.to_belief = l.id and s.kind = 'supersedes'
                                    and s.created_at <= p_at and (s.ended_at is null or s.ended_at > p_at)
                                 offset 0) as s) x;
    v_first := array_fill(1, array[v_n]);
    v_last := array_fill(0, array[v_n]);
    for v_k in 1 .. cardinality(v_edge_ant) loop
        if v_last[v_edge_ant[v_k]] = 0 then
            v_first[v_edge_ant[v_k]] := v_k;
        end if;
        v_last[v_edge_ant[v_k]] := v_k;
    end loop;
    v_sup_first := array_fill(1, array[v_n]);
    v_sup_last := array_fill(0, array[v_n]);
    for v_k in 1 .. cardinality(v_sup_loser) loop
        if v_sup_last[v_sup_loser[v_k]] = 0 then
            v_sup_first[v_sup_loser[v_k]] := v_k;
        end if;
        v_sup_last[v_sup_loser[v_k]] := v_k;
    end loop;
    -- 3. the least fixpoint of holding given who is superseded, then who is superseded given holding,
    --    until nothing changes (evaluate_closure's step 3). A node that becomes current takes one off
    --    what each reason it is in misses; a node holds once one of its reasons misses nothing.
    v_superseded := array_fill(false, array[v_n]);
    loop
        v_rounds := v_rounds + 1;
        if v_rounds > 100 then
            raise exception 'holding as of % did not settle after 100 rounds', p_at using errcode = 'BD002';
        end if;
        v_held := array_fill(false, array[v_n]);
        v_missing := v_need;
        v_queue := array_fill(0, array[v_n]);
        v_tail := 0;
        for v_p in 1 .. v_n loop
            if v_premise[v_p] and not v_blocked[v_p] then
                v_held[v_p] := true;
                if not v_superseded[v_p] and not v_expired[v_p] then
                    v_tail := v_tail + 1;
                    v_queue[v_tail] := v_p;
                end if;
            end if;
        end loop;
        v_head := 1;
        while v_head <= v_tail loop
            v_p := v_queue[v_head];
            v_head := v_head + 1;
            for v_k in v_first[v_p] .. v_last[v_p] loop
                v_j := v_edge_just[v_k];
                v_missing[v_j] := v_missing[v_j] - 1;
                if v_missing[v_j] = 0 then
                    v_c := v_cons[v_j];
                    if not v_held[v_c] and not v_blocked[v_c] then
                        v_held[v_c] := true;
                        if not v_superseded[v_c] and not v_expired[v_c] then
                            v_tail := v_tail + 1;
                            v_queue[v_tail] := v_c;
                        end if;
                    end if;
                end if;
            end loop;
        end loop;
        -- a belief is superseded then while a winner over it in effect then holds
        v_changed := false;
        for v_p in 1 .. v_n loop
            if v_sup_last[v_p] > 0 then
                v_sup := false;
                for v_k in v_sup_first[v_p] .. v_sup_last[v_p] loop
                    v_sup := v_sup or v_held[v_sup_winner[v_k]];
                end loop;
                if v_sup <> v_superseded[v_p] then
                    v_superseded[v_p] := v_sup;
                    v_changed := true;
                end if;
            end if;
        end loop;
        exit when not v_changed;
    end loop;
    return v_held[array_position(v_ids, p_node)];
end
$$;
comment on function beliefdb.node_held_at(uuid, uuid, timestamptz) is 'Whether a node of any kind held at a moment: the least fixpoint of rule 2 over what it rests on by reasons without a quote, each as it stood then';

-- Whether a belief held at a moment (rule 2, read back in time): recorded by then, not retracted
-- then, and either quoted by then by a fragment not retracted then of a source version in force then
-- (in_force_at), or held then by a reason without a quote recorded by then (derived, written by an
-- agent's step: node_held_at, the fixpoint over what it rests on as it stood then, run only for a belief
-- that has such a reason, after its quotes). What was retracted then comes from
-- beliefdb.retraction_period: a belief or a source retracted later still held before, and one restored
-- holds again from then.
create or replace function beliefdb.held_at(p_belief beliefdb.belief, p_at timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_belief.recorded_at <= p_at
       and not exists (
            select from beliefdb.retraction_period r
             where r.workspace_id = p_belief.workspace_id and r.node_id = p_belief.id
               and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
            -- each of this belief's quotes, its fragment read by key: a scalar subquery, not a join. As a
            -- join, in_force_at (a condition on the fragment alone) was pushed down to a scan of every
            -- fragment of the workspace, so each call read them all, and an as-of ask over a value
            -- changed 30 times ran past the statement timeout (read back for every rival and superseder).
            -- (node_held_at, confidence_factors_given and correction_supports test a quote the same way,
            -- written out in each: a function called per quote made the as-of listing ~18 % slower;
            -- change them together)
       and (exists (
                select from beliefdb.evidence e
                 where e.workspace_id = p_belief.workspace_id and e.belief_id = p_belief.id
                   and e.role = 'supports' and e.created_at <= p_at
                   and (select not exists (
                                   select from beliefdb.retraction_period r
                                    where r.workspace_id = f.workspace_id and r.node_id = f.id
                                      and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
                               and beliefdb.in_force_at(f.workspace_id, f.source_version_id, p_at)
                          from beliefdb.fragment f
                         where f.workspace_id = e.workspace_id and f.id = e.fragment_id))
            -- a reason without a quote recorded by then: did it hold then (the fixpoint, only for these)
            or (exists (
                    select from beliefdb.justification j
                     where j.workspace_id = p_belief.workspace_id and j.consequent = p_belief.id
                       and j.created_at <= p_at
                       and not exists (select from beliefdb.evidence x
                                        where x.workspace_id = j.workspace_id and x.belief_id = p_belief.id
                                          and x.justification_id = j.id))
                and beliefdb.node_held_at(p_belief.workspace_id, p_belief.id, p_at)))
$$;
comment on function beliefdb.held_at(beliefdb.belief, timestamptz) is 'Whether a belief held at a moment: recorded, not retracted, and quoted from a version in force or held by a reason without a quote (node_held_at), all as of then';

-- Whether a belief was superseded at a moment (rule 3, read back in time): a supersession of it in
-- effect then by a belief that held then (held_at). What live_at and belief_status_at read.
create or replace function beliefdb.superseded_at(p_belief beliefdb.belief, p_at timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select exists (
            select from beliefdb.relation r
              join beliefdb.belief w on w.workspace_id = r.workspace_id and w.id = r.from_belief
             where r.workspace_id = p_belief.workspace_id and r.to_belief = p_belief.id and r.kind = 'supersedes'
               and r.created_at <= p_at and (r.ended_at is null or r.ended_at > p_at)
               and beliefdb.held_at(w, p_at))
$$;
comment on function beliefdb.superseded_at(beliefdb.belief, timestamptz) is 'Whether a belief was superseded at a moment: a supersession of it in effect then by a belief that held then';

-- Whether a belief was live at a moment (rule 3, read back in time, as rule 8 counts a rival): it
-- held then (held_at), its valid time had not ended by then, and it was not superseded then
-- (superseded_at).
create or replace function beliefdb.live_at(p_belief beliefdb.belief, p_at timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select (upper_inf(p_belief.valid_time) or upper(p_belief.valid_time) > p_at)
       and beliefdb.held_at(p_belief, p_at)
       and not beliefdb.superseded_at(p_belief, p_at)
$$;
comment on function beliefdb.live_at(beliefdb.belief, timestamptz) is 'Whether a belief was live at a moment: held then, not expired by then, and not superseded then by a belief that held then';

-- Whether a belief was believed at a moment, on valid and recorded time together: live then
-- (live_at: held then, by a quote or by a reason without one, a derivation or an agent's step) and
-- valid then (a belief whose valid time had not started is current, but not believed at that moment).
-- So the as-of listings list what was derived and remembered too, while what it rested on held then;
-- their confidence then is computed for a page at once, what they derive from once
-- (beliefdb.confidences_at: computed again for each path, a page of a deep derivation graph ran past
-- the statement timeout). A belief quoted then never runs the fixpoint (held_at reads its quotes first).
create or replace function beliefdb.believed_at(p_belief beliefdb.belief, p_at timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_belief.valid_time @> p_at
       and beliefdb.live_at(p_belief, p_at)
$$;
comment on function beliefdb.believed_at(beliefdb.belief, timestamptz) is 'Whether a belief was believed at a moment: live then (live_at) and valid then';

-- Whether a reason (a justification) was live at a moment, as the pictures show it as of then: every
-- belief it needs believed then (believed_at), and no decision it needs flagged and not yet resolved
-- then (its review items). Its other antecedents are taken as recorded. An id that names no
-- justification of the workspace (or none this session can see) was no live reason: false, not the
-- true of a reason with nothing to check.
create or replace function beliefdb.reason_live_at(p_workspace_id uuid, p_justification uuid, p_at timestamptz)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select exists (select from beliefdb.justification j
                    where j.workspace_id = p_workspace_id and j.id = p_justification)
       and not exists (select from beliefdb.justification_antecedent y
                         join beliefdb.belief b on b.workspace_id = y.workspace_id and b.id = y.antecedent
                        where y.workspace_id = p_workspace_id and y.justification_id = p_justification
                          and not beliefdb.believed_at(b, p_at))
       and not exists (select from beliefdb.justification_antecedent y
                         join beliefdb.review_item r on r.workspace_id = y.workspace_id and r.node = y.antecedent
                        where y.workspace_id = p_workspace_id and y.justification_id = p_justification
                          and r.kind = 'decision_flagged' and r.created_at <= p_at
                          and (r.resolved_at is null or r.resolved_at > p_at))
$$;
comment on function beliefdb.reason_live_at(uuid, uuid, timestamptz) is 'Whether a justification was live at a moment: its beliefs believed then, no decision of it flagged and unresolved then; false for an id that names no justification of the workspace';

-- The status a belief believed at a moment (believed_at) had then: conflicting if a tie with it was
-- open then with a rival live then (rule 8: a live belief is conflicting while one of its open ties
-- is with a live rival), else current.
create or replace function beliefdb.status_at(p_belief beliefdb.belief, p_at timestamptz)
returns beliefdb.belief_status
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when exists (select from beliefdb.relation c
                               join beliefdb.belief r
                                 on r.workspace_id = c.workspace_id
                                and r.id = case when c.from_belief = p_belief.id then c.to_belief else c.from_belief end
                              where c.workspace_id = p_belief.workspace_id and c.kind = 'conflicts_with'
                                and p_belief.id in (c.from_belief, c.to_belief) and c.created_at <= p_at
                                and beliefdb.live_at(r, p_at))
                then 'conflicting' else 'current' end::beliefdb.belief_status
$$;
comment on function beliefdb.status_at(beliefdb.belief, timestamptz) is 'The status a belief believed at a moment had then: conflicting while a tie with a rival live then was open, else current';

-- The status any belief had at a moment (rule 3 read back in time), believed then or not: as status_at
-- while it was live then; else, in the order the live status takes them (beliefdb.propagate), retracted
-- (a retraction period open then), superseded (superseded_at), unsupported (not held then: by no quote
-- in force then, nor by a reason without a quote that held then) or expired (its valid time ended by then).
-- A retraction open then that a repair made to quarantine it (rule 10: its reason names the repair, whose
-- plan quarantines this belief, made at the repair's moment) is quarantined then, as the live status
-- keeps it while that retraction stands; one made by hand, whatever its reason says, is retracted.
-- For what was built on a belief (why as of a moment) too: a derived belief's holding then is
-- node_held_at's (held_at).
-- (plpgsql: a language sql body is checked when it is made, and an upgrade script that adds the
-- value 'expired' in its own transaction could not use it yet)
create or replace function beliefdb.belief_status_at(p_belief beliefdb.belief, p_at timestamptz)
returns beliefdb.belief_status
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return case when beliefdb.live_at(p_belief, p_at) then beliefdb.status_at(p_belief, p_at)
                when exists (select from beliefdb.retraction_period r
                               join beliefdb.repair q
                                 on q.workspace_id = r.workspace_id and r.reason = 'quarantined by repair ' || q.id
                                and q.created_at = r.retracted_at
                              where r.workspace_id = p_belief.workspace_id and r.node_id = p_belief.id
                                and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at)
                                and q.plan @> jsonb_build_array(jsonb_build_object('action', 'quarantine',
                                                                                   'node', p_belief.id)))
                then 'quarantined'
                when exists (select from beliefdb.retraction_period r
                              where r.workspace_id = p_belief.workspace_id and r.node_id = p_belief.id
                                and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
                then 'retracted'
                when beliefdb.superseded_at(p_belief, p_at) then 'superseded'
                when not beliefdb.held_at(p_belief, p_at) then 'unsupported'
                else 'expired' end::beliefdb.belief_status;
end
$$;
comment on function beliefdb.belief_status_at(beliefdb.belief, timestamptz) is 'The status any belief had at a moment: status_at while live then, else retracted (quarantined: by a repair), superseded, unsupported or expired then';

-- The factors of a belief's confidence as they stood at a moment, for one belief, the confidence each
-- of its antecedents had then given (p_known, p_known_confidence: by id; one not given counts as none,
-- at the product's floor): what beliefdb.confidence_factors_at answers, and what
-- beliefdb.confidences_at computes each belief of a derivation graph with, once. The rules are
-- confidence_factors_at's (read there); this reads no antecedent's confidence itself. Reads only;
-- granted, as confidence_factors_at, which calls it, is.
create or replace function beliefdb.confidence_factors_given(p_workspace_id uuid, p_belief_id uuid, p_at timestamptz,
                                                            p_known uuid[], p_known_confidence real[])
returns table (factor text, detail text, weight real)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_belief beliefdb.belief;
begin
    select * into v_belief from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = p_belief_id;
    if not found or p_at is null then
        return;
    end if;
    -- a correction whose reviewer's text did not support it then is weighed as what did (rule 9,
    -- beliefdb.correction_supports; confidence_factors does the same now)
    if (v_belief.confidence_kind = 'human_correction'
        and not beliefdb.correction_supports(p_workspace_id, p_belief_id, p_at))
       -- nor has a claim marked agent_asserted that no step wrote the memory weight (written_by_step),
       -- nor a memory none of whose steps (of a reason recorded by then) held then (node_held_at): its
       -- memory weight is its step's, which counted only while that held
       or (v_belief.confidence_kind = 'agent_asserted'
           -- (its steps read first, each by its key, and asked about after: as one join's filter, the
           -- fixpoint ran for every step of the workspace the plan read, 250 ms a memory)
           and not exists (select from (select a.antecedent
                                          from beliefdb.justification j
                                          join beliefdb.justification_antecedent a
                                            on a.workspace_id = j.workspace_id and a.justification_id = j.id
                                         where j.workspace_id = p_workspace_id and j.consequent = p_belief_id
                                           and j.created_at <= p_at
                                           and exists (select from beliefdb.node n
                                                        where n.workspace_id = a.workspace_id and n.id = a.antecedent
                                                          and n.kind = 'step')
                                        offset 0) as s
                            where beliefdb.node_held_at(p_workspace_id, s.antecedent, p_at))) then
        v_belief.confidence_kind := 'extracted';
    end if;
    return query
    -- the quotes that still supported it then (as held_at reads them): a fragment not retracted
    -- then, of a version in force then (in_force_at: neither it nor its source retracted then); only
    -- they verified it (recency) and are its sources
    with supporting as (
        -- (each source's authority as it was then: beliefdb.authority_at)
        -- (the test of a quote held_at writes out: change them together)
        -- (each quote's fragment read by its key, lateral behind offset 0: joined, in_force_at, a
        -- condition on the fragment alone, was pushed down to a scan of every fragment of the
        -- workspace, 12 ms a quoted belief of a workspace of 450 fragments; as held_at says)
        select e.created_at, s.id, s.name, beliefdb.authority_at(s, p_at) as authority, v.sha256
          from beliefdb.evidence e
         cross join lateral (select f.workspace_id, f.id, f.source_version_id
                               from beliefdb.fragment f
                              where f.workspace_id = e.workspace_id and f.id = e.fragment_id
                             offset 0) as f
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id and e.role = 'supports'
           and e.created_at <= p_at
           and not exists (select from beliefdb.retraction_period r
                            where r.workspace_id = f.workspace_id and r.node_id = f.id
                              and r.retracted_at <= p_at and (r.restored_at is null or r.restored_at > p_at))
           and beliefdb.in_force_at(f.workspace_id, f.source_version_id, p_at)
    ),
    recency as (
        select h.days as half_life, v.age_days, power(0.5, least(v.age_days / h.days, 30))::real as weight
          from (select greatest(0, floor(extract(epoch from p_at - coalesce(
                           (select max(x.created_at) from supporting x), v_belief.recorded_at)) / 86400))::integer
                       as age_days) v
          join beliefdb.confidence_half_life h on h.kind = v_belief.kind
         where v_belief.confidence_kind <> 'derived'
    ),
    -- (each source once, a copy of another's text in force one with it: confidence_factors' sources)
    each_source as (
        select distinct x.id, x.name, x.authority, p.weight, x.sha256
          from supporting x
          join beliefdb.confidence_policy p on p.factor = 'authority' and p.key = x.authority::text
    ),
    sources as (
        select distinct on (e.sha256) e.id, e.name, e.authority, e.weight,
               array(select c.name from each_source c where c.sha256 = e.sha256 and c.id <> e.id order by c.name)
                   as copies,
               -- (the copies' terms are summed in the order of the first id among them, as
               -- beliefdb._confidences sums them: a sum of floats depends on its order)
               (select min(c.id::text)::uuid from each_source c where c.sha256 = e.sha256) as key
          from each_source e
         order by e.sha256, e.weight desc, e.id
    ),
    antecedents as (
        select a.antecedent,
               (select k.confidence from unnest(p_known, p_known_confidence) as k (id, confidence)
                 where k.id = a.antecedent limit 1) as confidence
          from beliefdb.justification j
          join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
         where j.workspace_id = p_workspace_id and j.consequent = p_belief_id and a.edge_kind = 'derives'
           and j.created_at <= p_at
    ),
    base as (
        select case v_belief.confidence_kind
                   when 'human_correction' then
                       (select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'correction' and p.key = 'human_correction')
                   when 'derived' then
                       (select beliefdb.floored_product(sum(ln(greatest(a.confidence, 1e-9)) order by a.antecedent))
                          from antecedents a)
                   when 'agent_asserted' then
                       case when exists (select from sources)
                            then (select 1 - beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)) order by s.key))
                                    from sources s)
                            else (select p.weight from beliefdb.confidence_policy p
                                   where p.factor = 'trace' and p.key = 'memory') end
                   else (select 1 - coalesce(beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)) order by s.key)), 1)
                           from sources s)
               end::real as weight
    ),
    conflict as (
        select p.weight
          from beliefdb.confidence_policy p
         where p.factor = 'conflict' and p.key = 'open' and beliefdb.status_at(v_belief, p_at) = 'conflicting'
    )
    select 'authority', s.authority::text || ' source ' || s.name
                        || case when cardinality(s.copies) > 0
                                then ' (the same text as ' || array_to_string(s.copies, ', ') || ': one source)'
                                else '' end, s.weight::real
      from sources s
     where v_belief.confidence_kind in ('extracted', 'agent_asserted')
    union all
    select 'independent_sources',
           (select count(*) from sources)::text || ' independent source(s), combined as 1 - prod(1 - w)', base.weight
      from base
     where v_belief.confidence_kind = 'extracted'
        or (v_belief.confidence_kind = 'agent_asserted' and exists (select from sources))
    union all
    select 'agent_memory', 'written by an agent''s step, with no quoted evidence (confidence_policy trace/memory)',
           base.weight
      from base
     where v_belief.confidence_kind = 'agent_asserted' and not exists (select from sources)
    union all
    select 'correction', 'a reviewer''s correction (confidence_policy correction/human_correction)', base.weight
      from base
     where v_belief.confidence_kind = 'human_correction'
    union all
    select 'derived_from', 'belief ' || a.antecedent::text, a.confidence::real
      from antecedents a
     where v_belief.confidence_kind = 'derived'
    union all
    select 'derived', 'product of what it was derived from', base.weight
      from base
     where v_belief.confidence_kind = 'derived'
    union all
    select 'conflict', 'open conflict with an equal rival (multiplier)', k.weight::real from conflict k
    union all
    select 'recency', r.age_days || ' day(s) since last verified, half-life ' || r.half_life || ' days (multiplier)',
           r.weight
      from recency r
    union all
    select 'confidence', 'result', (coalesce(base.weight, 0) * coalesce((select k.weight from conflict k), 1)
                                    * coalesce((select r.weight from recency r), 1))::real
      from base;
end
$$;
comment on function beliefdb.confidence_factors_given(uuid, uuid, timestamptz, uuid[], real[]) is 'confidence_factors_at of one belief, the confidences its antecedents had then given (p_known, p_known_confidence)';
-- The confidence each of a set of beliefs had at a moment (confidence_factors_at's result), computed
-- bottom-up over what they derive from as it stood then, each belief once: what they derive from by
-- reasons recorded by then (edge derives, from a derived belief; at any depth, one recursive walk, each
-- node once), then the ones that derive from nothing then (quoted, memories, corrections: their own
-- factors, beliefdb.confidence_factors_given), then the derived ones in derivation order (Kahn's: a belief
-- once every derived belief it derives from is done), each from the confidences its antecedents had
-- then. A walk of every path to each (what confidence_factors_at did, calling itself per antecedent) is
-- exponential in a deep derivation graph: 25 levels of diamonds have 2^25 paths to their root.
-- A cycle of derivations (never ready: none is recorded by derive, whose belief is new, but nothing in
-- the schema refuses one) is the least fixpoint of its products: circular support gives no confidence
-- (rule 2), so each belief left on a cycle, and each that derives from one, is at the product's floor
-- (1e-9, times its own conflict factor), as its antecedents on the cycle count at the floor. (The live
-- beliefdb._propagate_confidence_from starts a cycle from the confidences stored and runs 20 rounds;
-- as of a moment nothing was stored then, and the recursion before never ended on one.)
-- One row per belief given (null for an id that is no belief of the workspace). Reads only; granted,
-- as confidence_factors_at and the as-of listings (a page's confidences at once), which call it, are.
create or replace function beliefdb.confidences_at(p_workspace_id uuid, p_ids uuid[], p_at timestamptz)
returns table (belief_id uuid, confidence real)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];                 -- the beliefs given and all they derive from then, by position
    v_derived boolean[];
    v_pos jsonb;                  -- each one's position, by id
    v_n integer;
    v_in_cons integer[];          -- derivation edges (consequent, antecedent), by consequent
    v_in_ant integer[];
    v_out_ant integer[];          -- the same edges, by antecedent
    v_out_cons integer[];
    v_in_first integer[];
    v_in_last integer[];
    v_out_first integer[];
    v_out_last integer[];
    v_confidence real[];
    v_done boolean[];
    v_missing integer[];          -- the derived antecedents not done yet of each derived belief
    v_queue integer[];
    v_head integer := 1;
    v_tail integer := 0;
    v_p integer;
    v_k integer;
    v_c integer;
begin
    if p_at is null or coalesce(cardinality(p_ids), 0) = 0 then
        return;
    end if;
    -- 1. the beliefs and all they derive from by reasons recorded by then (each read by its key, lateral
    --    behind offset 0, as node_held_at reads its walk)
    with recursive walk (id) as (
        select i.id from unnest(p_ids) as i (id) where i.id is not null
        union
        select x.antecedent
          from walk w
         cross join lateral (select a.antecedent
                               from beliefdb.belief b
                               join beliefdb.justification j on j.workspace_id = b.workspace_id and j.consequent = b.id
                               join beliefdb.justification_antecedent a
                                 on a.workspace_id = j.workspace_id and a.justification_id = j.id
                              where b.workspace_id = p_workspace_id and b.id = w.id and b.confidence_kind = 'derived'
                                and j.created_at <= p_at and a.edge_kind = 'derives'
                             offset 0) as x
    )
    select array_agg(w.id order by w.id), array_agg(coalesce(b.derived, false) order by w.id)
      into v_ids, v_derived
      from walk w
      left join lateral (select b.confidence_kind = 'derived' as derived
                           from beliefdb.belief b
                          where b.workspace_id = p_workspace_id and b.id = w.id
                         offset 0) as b on true;
    v_n := coalesce(cardinality(v_ids), 0);
    if v_n = 0 then
        return;
    end if;
    v_pos := (select jsonb_object_agg(c.id, c.pos) from unnest(v_ids) with ordinality as c (id, pos));
    -- 2. the derivation edges into each derived belief (one per antecedent of each reason recorded by
    --    then, as confidence_factors_at multiplies them), by consequent and by antecedent
    select coalesce(array_agg(x.cons order by x.cons, x.ant), '{}'), coalesce(array_agg(x.ant order by x.cons, x.ant), '{}')
      into v_in_cons, v_in_ant
      from (select c.pos::integer as cons, (v_pos ->> a.antecedent::text)::integer as ant
              from unnest(v_ids, v_derived) with ordinality as c (id, derived, pos)
             cross join lateral (select a.antecedent
                                   from beliefdb.justification j
                                   join beliefdb.justification_antecedent a
                                     on a.workspace_id = j.workspace_id and a.justification_id = j.id
                                  where j.workspace_id = p_workspace_id and j.consequent = c.id
                                    and j.created_at <= p_at and a.edge_kind = 'derives'
                                 offset 0) as a
             where c.derived) x;
    select coalesce(array_agg(e.ant order by e.ant, e.cons), '{}'), coalesce(array_agg(e.cons order by e.ant, e.cons), '{}')
      into v_out_ant, v_out_cons
      from unnest(v_in_ant, v_in_cons) as e (ant, cons);
    v_in_first := array_fill(1, array[v_n]);
    v_in_last := array_fill(0, array[v_n]);
    v_out_first := array_fill(1, array[v_n]);
    v_out_last := array_fill(0, array[v_n]);
    v_missing := array_fill(0, array[v_n]);
    for v_k in 1 .. cardinality(v_in_cons) loop
        if v_in_last[v_in_cons[v_k]] = 0 then
            v_in_first[v_in_cons[v_k]] := v_k;
        end if;
        v_in_last[v_in_cons[v_k]] := v_k;
        if v_derived[v_in_ant[v_k]] then
            v_missing[v_in_cons[v_k]] := v_missing[v_in_cons[v_k]] + 1;
        end if;
        if v_out_last[v_out_ant[v_k]] = 0 then
            v_out_first[v_out_ant[v_k]] := v_k;
        end if;
        v_out_last[v_out_ant[v_k]] := v_k;
    end loop;
    -- 3. those that derive from nothing then, by their own factors; the derived ones ready first in line
    v_confidence := array_fill(null::real, array[v_n]);
    v_done := array_fill(false, array[v_n]);
    v_queue := array_fill(0, array[v_n]);
    for v_p in 1 .. v_n loop
        if not v_derived[v_p] then
            v_confidence[v_p] := (select f.weight
                                    from beliefdb.confidence_factors_given(p_workspace_id, v_ids[v_p], p_at, null, null) f
                                   where f.factor = 'confidence');
            v_done[v_p] := true;
        elsif v_missing[v_p] = 0 then
            v_tail := v_tail + 1;
            v_queue[v_tail] := v_p;
        end if;
    end loop;
    -- 4. the derived ones in derivation order: each from its antecedents' confidences then, once
    while v_head <= v_tail loop
        v_p := v_queue[v_head];
        v_head := v_head + 1;
        v_confidence[v_p] := (
            select f.weight
              from beliefdb.confidence_factors_given(
                       p_workspace_id, v_ids[v_p], p_at,
                       array(select v_ids[e] from unnest(v_in_ant[v_in_first[v_p]:v_in_last[v_p]]) as e),
                       array(select v_confidence[e] from unnest(v_in_ant[v_in_first[v_p]:v_in_last[v_p]]) as e)) f
             where f.factor = 'confidence');
        v_done[v_p] := true;
        for v_k in v_out_first[v_p] .. v_out_last[v_p] loop
            v_c := v_out_cons[v_k];
            v_missing[v_c] := v_missing[v_c] - 1;
            if v_missing[v_c] = 0 then
                v_tail := v_tail + 1;
                v_queue[v_tail] := v_c;
            end if;
        end loop;
    end loop;
    -- 5. what is left is on a cycle or derives from one: its antecedents left count at the floor
    if exists (select from unnest(v_derived, v_done) as x (derived, done) where x.derived and not x.done) then
        for v_p in 1 .. v_n loop
            if not v_done[v_p] then
                v_confidence[v_p] := 1e-9;
            end if;
        end loop;
        for v_p in 1 .. v_n loop
            if not v_done[v_p] then
                v_confidence[v_p] := (
                    select f.weight
                      from beliefdb.confidence_factors_given(
                               p_workspace_id, v_ids[v_p], p_at,
                               array(select v_ids[e] from unnest(v_in_ant[v_in_first[v_p]:v_in_last[v_p]]) as e),
                               array(select v_confidence[e] from unnest(v_in_ant[v_in_first[v_p]:v_in_last[v_p]]) as e)) f
                     where f.factor = 'confidence');
            end if;
        end loop;
    end if;
    return query select i.id, v_confidence[(v_pos ->> i.id::text)::integer]
                   from (select distinct g.id from unnest(p_ids) as g (id) where g.id is not null) as i;
end
$$;
comment on function beliefdb.confidences_at(uuid, uuid[], timestamptz) is 'The confidence each of a set of beliefs had at a moment, computed once per belief bottom-up over what they derive from then';

-- The factors of a belief's confidence as they stood at a moment (rule 9, read back in time), the
-- rows of beliefdb.confidence_factors: the sources of its evidence recorded by then whose quotes still
-- supported it then (fragment not retracted then, version in force then: beliefdb.retraction_period), the conflict factor if it was conflicting then (status_at), its
-- age at that moment, for a derived belief the confidence its antecedents had then, and for an agent's
-- memory the memory weight while a step that wrote it held then (node_held_at). The weights
-- are today's policy (confidence_policy keeps no history). A separate function, not a moment added to
-- confidence_factors: that one is on every correction's path, planned once, and reads no history.
-- A derived belief's antecedents' confidences then are computed once each over what they derive from
-- (beliefdb.confidences_at, bottom-up over the derivation graph as it stood then), not again for each
-- path to them: the factors themselves are beliefdb.confidence_factors_given's.
create or replace function beliefdb.confidence_factors_at(p_workspace_id uuid, p_belief_id uuid, p_at timestamptz)
returns table (factor text, detail text, weight real)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_known uuid[];
    v_confidence real[];
begin
    if p_at is null then
        return;
    end if;
    -- what a derived belief derived from by then, each antecedent's confidence then computed once
    select array_agg(c.belief_id), array_agg(c.confidence)
      into v_known, v_confidence
      from beliefdb.confidences_at(p_workspace_id, array(
                select distinct a.antecedent
                  from beliefdb.belief b
                  join beliefdb.justification j on j.workspace_id = b.workspace_id and j.consequent = b.id
                  join beliefdb.justification_antecedent a
                    on a.workspace_id = j.workspace_id and a.justification_id = j.id
                 where b.workspace_id = p_workspace_id and b.id = p_belief_id and b.confidence_kind = 'derived'
                   and j.created_at <= p_at and a.edge_kind = 'derives'), p_at) c;
    return query select f.factor, f.detail, f.weight
                   from beliefdb.confidence_factors_given(p_workspace_id, p_belief_id, p_at, v_known, v_confidence) f;
end
$$;
comment on function beliefdb.confidence_factors_at(uuid, uuid, timestamptz) is 'The factors of a belief''s confidence as they stood at a moment (today''s weights) and the result (last row)';

-- A belief's confidence at a moment: the result of confidence_factors_at.
create or replace function beliefdb.confidence_at(p_belief beliefdb.belief, p_at timestamptz) returns real
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select cf.weight from beliefdb.confidence_factors_at(p_belief.workspace_id, p_belief.id, p_at) cf
     where cf.factor = 'confidence'
$$;
comment on function beliefdb.confidence_at(beliefdb.belief, timestamptz) is 'A belief''s confidence at a moment, as its factors stood then (confidence_factors_at)';

-- The status a decision had at a moment (rule 4, read back in time), from its review items:
-- needs_review while it was flagged then (an item opened by then and not resolved by then), else
-- approved or rejected by the last item resolved by then, if a person resolved it, else active. The
-- last is the one resolved last (review_item.resolved_seq, in the order the resolutions committed and
-- were made): items resolved in one transaction share their resolved_at, and a flag approved, raised
-- again and rejected at once reads rejected.
create or replace function beliefdb.decision_status_at(p_decision beliefdb.decision, p_at timestamptz)
returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when exists (select from beliefdb.review_item r
                              where r.workspace_id = p_decision.workspace_id and r.node = p_decision.id
                                and r.kind = 'decision_flagged'
                                and r.created_at <= p_at and (r.resolved_at is null or r.resolved_at > p_at))
                then 'needs_review'
                -- the last item resolved by then: closed by beliefdb (its question settled), no verdict
                else coalesce((select case when r.status in ('approved', 'rejected') then r.status end
                                 from beliefdb.review_item r
                                where r.workspace_id = p_decision.workspace_id and r.node = p_decision.id
                                  and r.kind = 'decision_flagged' and r.resolved_at <= p_at
                                order by r.resolved_seq desc limit 1), 'active') end
$$;
comment on function beliefdb.decision_status_at(beliefdb.decision, timestamptz) is 'The status a decision had at a moment, from its review items: needs_review while flagged then, else the verdict on the last item resolved by then (approved, rejected), else active';

-- The status an action had at a moment (rule 4, read back in time), from its review items: held
-- while it was held then (an item opened by then and not resolved by then), cancelled when the last
-- item resolved by then was rejected, or when it is cancelled now and its decision was rejected by
-- then (rejecting cancels what a person had released), else its status now (scheduled, if it is held
-- or cancelled now). The last item: the one resolved last (review_item.resolved_seq).
create or replace function beliefdb.action_status_at(p_action beliefdb.action, p_at timestamptz)
returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when exists (select from beliefdb.review_item r
                              where r.workspace_id = p_action.workspace_id and r.node = p_action.id
                                and r.kind = 'action_held'
                                and r.created_at <= p_at and (r.resolved_at is null or r.resolved_at > p_at))
                then 'held'
                when (select r.status from beliefdb.review_item r
                       where r.workspace_id = p_action.workspace_id and r.node = p_action.id
                         and r.kind = 'action_held' and r.resolved_at <= p_at
                       order by r.resolved_seq desc limit 1) = 'rejected'
                then 'cancelled'
                when p_action.status = 'cancelled'
                     and (select beliefdb.decision_status_at(d, p_at) from beliefdb.decision d
                           where d.workspace_id = p_action.workspace_id and d.id = p_action.decision_id) = 'rejected'
                then 'cancelled'
                when p_action.status in ('held', 'cancelled') then 'scheduled'
                else p_action.status end
$$;
comment on function beliefdb.action_status_at(beliefdb.action, timestamptz) is 'The status an action had at a moment, from its review items: held while held then, cancelled when the last item resolved by then was rejected or its decision was rejected by then, else its status now (scheduled if held or cancelled now)';

-- What the bound workspace believed at a moment, with the status and the confidence it had then.
create or replace function beliefdb.beliefs_as_of(p_at timestamptz) returns setof beliefdb.belief
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
begin
    -- with none bound the answer would be empty, as if nothing had been believed
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    if p_at is null then
        raise exception 'beliefs as of when? give a moment (now() for now)' using errcode = 'BD005';
    end if;
    -- each with the status and the confidence it had then (beliefdb.confidences_at: those of the rows
    -- believed, computed together, each once), not today's stored figure beside yesterday's status
    return query
        with believed as materialized (
            select b.* from beliefdb.belief b where b.workspace_id = v_ws and beliefdb.believed_at(b, p_at)
        ), confidence as (
            select c.belief_id, c.confidence
              from beliefdb.confidences_at(v_ws, array(select x.id from believed x), p_at) c
        )
        select b.workspace_id, b.id, b.node_kind, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope,
               b.valid_time, b.recorded_at, coalesce(c.confidence, b.confidence), b.confidence_kind,
               beliefdb.status_at(b::beliefdb.belief, p_at),
               b.revision, b.owner, b.search, b.provenance, b.sha256
          from believed b
          left join confidence c on c.belief_id = b.id;
end
$$;
comment on function beliefdb.beliefs_as_of(timestamptz) is 'What the bound workspace believed at a moment (valid time and recorded time together), each belief with the status and the confidence it had then';

-- A node id from a full uuid or a unique prefix of at least 4 hex digits (dashes as in the id),
-- among the nodes of the given kinds (all kinds when null). A prefix is a range of ids: the
-- primary key is read between its lowest and highest completion. A prefix of 1 to 3 hex digits is
-- too short to name a node: the error says so (ambiguous when it begins several) and asks for at
-- least 4, whether or not it begins one; a reference that is no id nor the start of one is bad input
-- too (BD005), and only a well-formed one that names nothing is unknown (BD004). One that names a node of
-- another kind than those asked for (a decision's id given as a belief's) is unknown too, and says what
-- it names: '<id> is a decision, not a belief', not 'unknown belief <id>' of an id the workspace has.
create or replace function beliefdb.resolve_node(p_ref text, p_kinds beliefdb.node_kind[] default null) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_hex text := replace(lower(trim(coalesce(p_ref, ''))), '-', '');
    v_ids uuid[];
    v_what text := coalesce((select string_agg(k::text, ' or ') from unnest(p_kinds) k), 'node');
    v_matches text;
    v_other uuid[];
    v_kind text;
begin
    -- no workspace bound: say so, not "unknown belief" for an id a workspace has
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    -- an empty reference names nothing: say so, not "unknown belief " with nothing after it
    if v_ref = '' then
        raise exception 'no % id given: give an id or at least 4 characters of one', v_what using errcode = 'BD005';
    end if;
    if v_ref ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' then
        select array_agg(n.id) into v_ids from beliefdb.node n
         where n.workspace_id = v_ws and n.id = v_hex::uuid and (p_kinds is null or n.kind = any(p_kinds));
    elsif v_ref ~ '^[0-9a-f]{1,3}$'
          or (v_ref ~ '^[0-9a-f-]{4,36}$' and length(v_hex) >= 4
              and v_ref = left(rpad(v_hex, 32, '0')::uuid::text, length(v_ref))) then
        select array_agg(n.id) into v_ids
          from (select n.id from beliefdb.node n
                 where n.workspace_id = v_ws
                   and n.id between rpad(v_hex, 32, '0')::uuid and rpad(v_hex, 32, 'f')::uuid
                   and (p_kinds is null or n.kind = any(p_kinds))
                 order by n.id
                 limit 21) n;
    else
        -- no id nor the start of one (not hex digits and dashes as an id has them): bad input, not unknown
        raise exception '% id % is not an id: give an id or at least 4 of its first hex digits', v_what, p_ref
            using errcode = 'BD005';
    end if;
    -- (the first few it begins, as the listings show ids, or whole when the prefix is long already:
    -- which to give is then a choice, not another guess)
    v_matches := least(cardinality(v_ids), 20)::text || ' matches'
                 || case when cardinality(v_ids) > 20 then ' or more' else '' end
                 || coalesce(': ' || (select string_agg(case when length(v_hex) < 6 then left(u.id::text, 8)
                                                             else u.id::text end, ', ' order by u.n)
                                        from unnest(v_ids[1:5]) with ordinality as u (id, n))
                             || case when cardinality(v_ids) > 5 then ', ...' else '' end, '');
    if coalesce(cardinality(v_ids), 0) = 0 and length(v_hex) >= 4 then
        -- (the node of another kind it names, if one: read only on the way to the error)
        if p_kinds is not null then
            select array_agg(n.id), max(n.kind::text) into v_other, v_kind
              from (select n.id, n.kind from beliefdb.node n
                     where n.workspace_id = v_ws
                       and n.id between rpad(v_hex, 32, '0')::uuid and rpad(v_hex, 32, 'f')::uuid
                     limit 2) n;
        end if;
        -- (the detail, for a program: the kinds of node it would have named; the words are for psql)
        if cardinality(v_other) = 1 then
            raise exception '% is %, not %', v_other[1],
                case when v_kind ~ '^[aeiou]' then 'an ' else 'a ' end || v_kind,
                case when v_what ~ '^[aeiou]' then 'an ' else 'a ' end || v_what
                using errcode = 'BD004', detail = jsonb_build_object('unknown', to_jsonb(p_kinds))::text;
        end if;
        raise exception 'unknown % %', v_what, p_ref using errcode = 'BD004', detail = jsonb_build_object(
            'unknown', coalesce(to_jsonb(p_kinds), '["node"]'))::text;
    elsif length(v_hex) < 4 and cardinality(v_ids) > 1 then
        raise exception '% id prefix % is ambiguous (%): give at least 4 characters of the id', v_what, p_ref,
            v_matches using errcode = 'BD006';
    elsif length(v_hex) < 4 then
        raise exception '% id prefix % is too short: give at least 4 characters of the id', v_what, p_ref
            using errcode = 'BD005';
    elsif cardinality(v_ids) > 1 then
        raise exception '% id prefix % is ambiguous (%): give more characters of the id', v_what, p_ref,
            v_matches using errcode = 'BD006';
    end if;
    return v_ids[1];
end
$$;
comment on function beliefdb.resolve_node(text, beliefdb.node_kind[]) is 'Resolve a node id or unique id prefix of at least 4 hex digits (among some kinds) in the bound workspace; a shorter prefix is refused as too short (ambiguous when it begins several), a reference that is no id as bad input, one of a node of another kind as unknown, saying what it is';

-- A belief id from a full uuid or a unique prefix of at least 4 hex digits.
create or replace function beliefdb.resolve_belief(p_ref text) returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb.resolve_node(p_ref, '{belief}')
$$;
comment on function beliefdb.resolve_belief(text) is 'Resolve a belief id or unique id prefix in the bound workspace';

-- confidence_factors of a belief of the bound workspace named as every function of the API names one
-- (its id or a unique prefix: resolve_belief, BD004 unknown, BD006 ambiguous), as `why` takes it:
-- confidence_factors itself takes a workspace and a whole id (a DBA's, across workspaces), and
-- answers a whole id no belief has with no rows.
create or replace function beliefdb.explain_confidence(p_belief text)
returns table (factor text, detail text, weight real)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select f.factor, f.detail, f.weight
      from beliefdb.confidence_factors(beliefdb.current_workspace_id(), beliefdb.resolve_belief(p_belief)) f
$$;
comment on function beliefdb.explain_confidence(text) is 'The factors of a belief''s confidence and the result (last row), the belief of the bound workspace by its id or a unique prefix';
