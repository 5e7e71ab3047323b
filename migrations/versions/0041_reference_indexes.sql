-- Frozen at revision 0041: the rest of the foreign keys whose cascade (or set null) had no index to
-- read by, as 0040 did for evidence and relation. Each deleted belief, fragment, node, source, step
-- or run looked up the rows that refer to it by a column no index leads with, reading every
-- correction, review item, step or run of the workspace for each: forgetting a source of N beliefs
-- in a workspace of M review items read N × M rows. review_item_node leads with kind, which only
-- PostgreSQL 18's skip scan reads by node. Keyed by the id alone, as 0040's (an index led by
-- workspace_id is a candidate for every probe of the workspace), partial where the column may be
-- null (a cascade's probe is by a value, never by null). Never edit: change functions in sql/.

create index correction_belief on beliefdb.correction (belief_id);
create index correction_fragment on beliefdb.correction (fragment_id) where fragment_id is not null;
create index correction_replacement on beliefdb.correction (replacement_belief_id)
    where replacement_belief_id is not null;
create index run_parent on beliefdb.run (parent_run_id) where parent_run_id is not null;
create index step_replay_of on beliefdb.step (replay_of) where replay_of is not null;
create index review_item_by_node on beliefdb.review_item (node) where node is not null;
create index review_item_other_node on beliefdb.review_item (other_node) where other_node is not null;
create index review_item_source on beliefdb.review_item (source_id) where source_id is not null;
