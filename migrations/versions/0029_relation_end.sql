-- Frozen at revision 0029: supersessions that end (rule 3 of docs/rules.md). Never edit: change
-- tables through a new revision, and sql/schema/10_tables.sql with it.

-- A supersedes edge whose superseder no longer holds decides nothing, but it still closed a cycle
-- when rule 8 later settled the pair the other way (a source that went back to an older value after
-- another source had taken over). Such an edge is now ended, kept as history: supersession in
-- effect (ended_at is null) is what must stay acyclic, and one pair can be superseded again later.
-- Each step only if missing (a test stands in for this revision before the upgrade reaches it).
alter table beliefdb.relation add column if not exists ended_at timestamptz;
comment on column beliefdb.relation.ended_at is 'When a supersession stopped applying (its superseder no longer held and rule 8 settled the pair again); null while in effect';
alter table beliefdb.relation drop constraint if exists relation_only_supersession_ends;
alter table beliefdb.relation add constraint relation_only_supersession_ends
    check (ended_at is null or kind = 'supersedes');
-- belief_history shows it before its last column (the workspace, as every view): migrate makes the
-- view again after the revisions
drop view if exists beliefdb.belief_history;

-- one edge in effect per pair and kind; ended ones are history beside it
alter table beliefdb.relation drop constraint if exists relation_workspace_id_from_belief_to_belief_kind_key;
create unique index if not exists relation_in_effect on beliefdb.relation (workspace_id, from_belief, to_belief, kind)
    where ended_at is null;
