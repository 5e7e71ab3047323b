-- Frozen at revision 0010: truth at the edges. Never edit: change tables through a new
-- revision, and sql/10_tables.sql with it.

-- A belief whose valid time has ended is expired: it still holds, but is not current. (Added
-- last: a value added inside the migration's transaction is only used by plpgsql at run time.)
alter type beliefdb.belief_status add value if not exists 'expired';
comment on type beliefdb.belief_status is 'Status of a belief; current and conflicting beliefs are the ones that are true now; expired ones held until their valid time ended';

-- Provenance labels are separate worlds: a belief belongs to the world of the source that first
-- stated it, and only evidence from that world supports it.
alter table beliefdb.belief add column provenance beliefdb.provenance not null default 'production';
update beliefdb.belief b
   set provenance = p.provenance
  from (select e.workspace_id, e.belief_id,
               case when bool_or(s.provenance = 'production') then 'production'
                    else min(s.provenance::text) end::beliefdb.provenance as provenance
          from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where e.role = 'supports'
         group by e.workspace_id, e.belief_id) p
 where b.workspace_id = p.workspace_id and b.id = p.belief_id and p.provenance <> 'production';

-- Sources have owners: the principal that first ingested it (before this revision: the one the
-- audit chain names for its first version, else the owner of its oldest belief, else the
-- migrating user).
alter table beliefdb.source add column owner text;
update beliefdb.source s
   set owner = coalesce(
        (select a.principal from beliefdb.audit_event a
          where a.workspace_id = s.workspace_id and a.action = 'ingest' and a.payload ->> 'source' = s.name
          order by a.seq limit 1),
        (select b.owner
           from beliefdb.source_version v
           join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
           join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id
           join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
          where v.workspace_id = s.workspace_id and v.source_id = s.id
          order by b.recorded_at limit 1),
        session_user::text);
alter table beliefdb.source alter column owner set default beliefdb.current_principal();
alter table beliefdb.source alter column owner set not null;

-- An action ends done, failed or rolled back (its latest outcome), or cancelled.
alter table beliefdb.action drop constraint action_status_check;
alter table beliefdb.action add constraint action_status_check
    check (status in ('scheduled', 'held', 'done', 'failed', 'rolled_back', 'cancelled'));

-- Proposals of a new version or a retraction of another principal's source wait for its owner;
-- an item whose question settled by itself is closed.
alter table beliefdb.review_item drop constraint review_item_kind_check;
alter table beliefdb.review_item add constraint review_item_kind_check
    check (kind in ('decision_flagged', 'action_held', 'conflict', 'correction_proposed', 'version_proposed',
                    'retraction_proposed'));
alter table beliefdb.review_item drop constraint review_item_status_check;
alter table beliefdb.review_item add constraint review_item_status_check
    check (status in ('open', 'approved', 'rejected', 'closed'));
alter table beliefdb.review_item add column source_id uuid;
alter table beliefdb.review_item alter column node drop not null;
alter table beliefdb.review_item add constraint review_item_source_id_fkey
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade;
alter table beliefdb.review_item add constraint review_item_subject_check
    check ((node is null) <> (source_id is null) and (source_id is null) = (kind not in ('version_proposed', 'retraction_proposed')));
drop index beliefdb.review_item_open;
create unique index review_item_open on beliefdb.review_item (workspace_id, kind, node, other_node) nulls not distinct
    where status = 'open' and kind in ('decision_flagged', 'action_held', 'conflict');
comment on table beliefdb.review_item is 'A durable item for a person to approve or reject: a flagged decision, a held action, a conflict, a proposed correction, version or retraction; closed when it settled by itself';

-- Beliefs that may expire: the current ones with an end to their valid time, by that end.
create index belief_expiry on beliefdb.belief (workspace_id, upper(valid_time))
    where status in ('current', 'conflicting') and not upper_inf(valid_time);
-- Beliefs with an end to their valid time, by id: the closure walk asks which of its beliefs ended.
create index belief_ending on beliefdb.belief (workspace_id, id) include (valid_time)
    where not upper_inf(valid_time);

-- Spans of source text masked when a subject was forgotten (the text itself is gone).
create table beliefdb.redaction (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    source_version_id uuid not null,
    start_offset integer not null check (start_offset >= 0),
    end_offset integer not null,
    reason text not null,
    created_at timestamptz not null default beliefdb.clock(),
    created_by text not null default beliefdb.current_principal(),
    primary key (workspace_id, id),
    check (end_offset > start_offset),
    foreign key (workspace_id, source_version_id) references beliefdb.source_version (workspace_id, id) on delete cascade
);
comment on table beliefdb.redaction is 'A span of a source version masked when a subject was forgotten: offsets and reason, never the text';
alter table beliefdb.redaction alter column workspace_id set statistics 0;

-- Functions whose signature changed or that are gone (sql/ creates the new ones after this).
drop function if exists beliefdb.evaluate_closure(uuid, uuid[], uuid[]);
drop function if exists beliefdb.correction_preview(uuid);
drop function if exists beliefdb.merge_changes(jsonb, jsonb);
drop function if exists beliefdb.decay(timestamptz, text);
drop function if exists beliefdb.add_claims(uuid, uuid, jsonb, jsonb);
