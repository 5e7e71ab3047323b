-- beliefdb: review items that settle by themselves (docs/rules.md, rule 17).
-- A tie no longer in conflict, a proposed correction of a belief no longer current, and a
-- proposal about a source that already happened close on their own (status closed, by beliefdb).

-- Review items whose question settled by itself close (status closed, by beliefdb): a tie one of
-- whose sides is no longer in conflict (superseded, unsupported, expired, retracted or forgotten),
-- and a proposed correction of a belief that is no longer current (correct what replaced it). (A
-- tie that comes back opens its item again when rule 8 meets it again: beliefdb._settle.) Called by
-- propagate for the beliefs its evaluation reached (a tie's both sides are reached together).
-- Closed when the change is dated, but never before the item was opened: an expiry is dated when the
-- valid time ended (beliefdb._process_expiries), and a caller of the SQL functions may have opened
-- the item in the same transaction before its change processed that expiry.
create or replace function beliefdb._settle_review_items(p_workspace_id uuid) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_closed integer;
begin
    update beliefdb.review_item r
       set status = 'closed', resolved_at = greatest(beliefdb.clock(), r.created_at), resolved_by = 'beliefdb',
           note = case r.kind when 'conflict' then 'settled: the beliefs are no longer tied'
                              else 'settled: the belief is no longer current (it is ' || b.status::text || ')' end
      from beliefdb.belief b
     where r.workspace_id = p_workspace_id and r.status = 'open' and r.kind in ('conflict', 'correction_proposed')
       -- the beliefs the last evaluation reached (a tie's both sides are reached together)
       and r.node in (select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief')
       and b.workspace_id = r.workspace_id and b.id = r.node
       and case r.kind
               when 'conflict' then
                    b.status <> 'conflicting'
                    or not exists (select from beliefdb.belief o
                                    where o.workspace_id = r.workspace_id and o.id = r.other_node
                                      and o.status = 'conflicting')
               else b.status not in ('current', 'conflicting')
           end;
    get diagnostics v_closed = row_count;
    return v_closed;
end
$$;
comment on function beliefdb._settle_review_items(uuid) is 'Close the open conflict and correction items whose question settled by itself';

-- Proposals about sources whose question settled by itself close (status closed, by beliefdb): a
-- proposed retraction (or restore) of a source, version or fragment that is now retracted (or
-- restored), and a proposed text that is now the version in force.
create or replace function beliefdb._settle_source_items(p_workspace_id uuid, p_sources uuid[]) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_closed integer;
    v_left integer;
begin
    -- a fragment's retraction or restore proposed on a text that is no longer in force while the source
    -- is (the source has a new version since, or the fragment is gone): approved, it would change words
    -- nothing reads now, and not the new text's own fragment of them; closed, for a proposal on the text
    -- in force. (Not when the whole source is retracted: restoring it brings the fragment back.)
    update beliefdb.review_item r
       set status = 'closed', resolved_at = beliefdb.clock(), resolved_by = 'beliefdb',
           note = 'settled: the source has a new text since; propose it again on the text in force'
     where r.workspace_id = p_workspace_id and r.status = 'open' and r.source_id = any(p_sources)
       and r.kind = 'retraction_proposed' and r.proposal ->> 'target' = 'node'
       and not exists (select from beliefdb.fragment f
                        join beliefdb.source s on s.workspace_id = f.workspace_id and s.id = r.source_id
                        where f.workspace_id = r.workspace_id and f.id = (r.proposal ->> 'node')::uuid
                          and (s.retracted_at is not null or beliefdb.in_force(f.workspace_id, f.source_version_id)));
    get diagnostics v_left = row_count;
    update beliefdb.review_item r
       set status = 'closed', resolved_at = beliefdb.clock(), resolved_by = 'beliefdb',
           note = case r.kind when 'version_proposed' then 'settled: the source has this text in force now'
                              else 'settled: it is ' || case when (r.proposal ->> 'undo')::boolean then 'restored'
                                                              else 'retracted' end || ' already' end
      from beliefdb.source s
     where r.workspace_id = p_workspace_id and r.status = 'open' and r.source_id = any(p_sources)
       and s.workspace_id = r.workspace_id and s.id = r.source_id
       and case r.kind
               when 'version_proposed' then
                    exists (select from beliefdb.source_version v
                             where v.workspace_id = s.workspace_id and v.source_id = s.id
                               and v.sha256 = sha256(convert_to(r.proposal ->> 'content', 'UTF8'))
                               and beliefdb.in_force(v.workspace_id, v.id))
               when 'retraction_proposed' then
                    coalesce((r.proposal ->> 'undo')::boolean, false) = (
                        case when r.proposal ->> 'target' = 'source' then s.retracted_at is null
                             when r.proposal ->> 'target' = 'node' then
                                  exists (select from beliefdb.node n
                                           where n.workspace_id = s.workspace_id
                                             and n.id = (r.proposal ->> 'node')::uuid and n.retracted_at is null)
                             else exists (select from beliefdb.source_version v
                                           where v.workspace_id = s.workspace_id and v.source_id = s.id
                                             and v.version = (r.proposal ->> 'version')::integer
                                             and v.retracted_at is null) end)
               else false
           end;
    get diagnostics v_closed = row_count;
    return v_closed + v_left;
end
$$;
comment on function beliefdb._settle_source_items(uuid, uuid[]) is 'Close the open proposals about sources whose question settled by itself';

-- Decisions just flagged or actions just held (rule 4): note the status they had before the operation
-- (their standing, unless noted before, did not change) and open the review item a person resolves,
-- dated when the change is, but never before its decision or action was recorded (an expiry is dated
-- when the valid time ended, beliefdb._process_expiries, and a caller of the SQL functions may have
-- recorded the decision in the same transaction before its change processed that expiry).
create or replace function beliefdb._note_review(p_workspace_id uuid, p_ids uuid[], p_status_before text,
    p_kind text, p_reason text) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into pg_temp.beliefdb_changes (id, kind, held, was_current, status)
    select n.id, n.kind, n.holds, n.current, p_status_before
      from beliefdb.node n
     where n.workspace_id = p_workspace_id and n.id = any(p_ids)
    on conflict (id) do nothing;
    insert into beliefdb.review_item (workspace_id, kind, node, reason, created_at)
    select p_workspace_id, p_kind, x.id, p_reason, greatest(beliefdb.clock(), n.created_at)
      from unnest(p_ids) x (id)
      left join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = x.id
    on conflict do nothing;
end
$$;
comment on function beliefdb._note_review(uuid, uuid[], text, text, text) is 'Note the status flagged decisions or held actions had before the operation, and open their review items';

-- Trigger: a review item resolved (approved, rejected or closed: its resolved_at set) takes the next
-- number of its workspace's resolutions (resolved_seq), under the workspace's write lock (its audit
-- head row, beliefdb.lock_workspace, which every writer takes first and keeps to its commit): the
-- numbers follow the order the resolutions commit in, and within a transaction the order they were
-- made in. Items resolved in one transaction share their resolved_at (beliefdb.clock), and
-- decision_status_at and action_status_at read the last verdict by this number: ordered by the
-- created_at and random id of items made in the same transaction too, they read back either.
-- An update that leaves the resolution as it was keeps its number; an item open again has none.
create or replace function beliefdb.review_item_resolved_seq() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if new.resolved_at is null then
        new.resolved_seq := null;
    elsif TG_OP = 'UPDATE' and old.resolved_at is not null
          and (old.status, old.resolved_at) is not distinct from (new.status, new.resolved_at) then
        new.resolved_seq := old.resolved_seq;
    else
        -- (the lock is the caller's already, but for a statement of the schema's owner by hand)
        perform from beliefdb.audit_head h where h.workspace_id = new.workspace_id for update;
        new.resolved_seq := coalesce((select max(r.resolved_seq) from beliefdb.review_item r
                                       where r.workspace_id = new.workspace_id), 0) + 1;
    end if;
    return new;
end
$$;
comment on function beliefdb.review_item_resolved_seq() is 'Trigger: a resolved review item takes the next number of its workspace''s resolutions (resolved_seq), under the workspace''s write lock';

create or replace trigger review_item_resolved_seq before insert or update of status, resolved_at, resolved_seq
    on beliefdb.review_item
    for each row execute function beliefdb.review_item_resolved_seq();

-- The DETAIL of the refusal of a verdict on an item approved, rejected or closed already: a program
-- tells a verdict sent again (its first one applied, or the item settled by itself) from bad input by
-- it (the library's already_resolved), and reads what became of the item and who resolved it.
create or replace function beliefdb._already_resolved(p_item beliefdb.review_item) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select pg_catalog.jsonb_build_object('already', 'resolved', 'status', p_item.status, 'by', p_item.resolved_by)::text
$$;
comment on function beliefdb._already_resolved(beliefdb.review_item) is 'The DETAIL of the refusal of a verdict on a review item resolved already: {"already": "resolved", "status", "by"}';
