-- Frozen at revision 0006: proposals from principals who do not own a belief wait in the
-- review queue. Never edit: change tables through a new revision, and sql/10_tables.sql with it.

alter table beliefdb.review_item drop constraint review_item_kind_check;
alter table beliefdb.review_item add constraint review_item_kind_check
    check (kind in ('decision_flagged', 'action_held', 'conflict', 'correction_proposed'));

-- who proposed a correction, and what it says (statement, value, reviewer, reason, revision)
alter table beliefdb.review_item add column proposed_by text;
alter table beliefdb.review_item add column proposal jsonb;

-- several principals may each propose a correction of one belief
drop index beliefdb.review_item_open;
create unique index review_item_open on beliefdb.review_item (workspace_id, kind, node)
    where status = 'open' and kind <> 'correction_proposed';

comment on table beliefdb.review_item is 'A durable item for a person to approve or reject: a flagged decision, a held action, a conflict, a proposed correction';
