-- Frozen at revision 0040: the foreign keys whose cascade had no index to read by. A deleted
-- justification's evidence (beliefdb.evidence by justification) and a deleted belief's supersessions
-- and ties from it (beliefdb.relation by from_belief: relation_in_effect holds only those in effect,
-- and the cascade must find every one) are each one lookup per deleted row, which without an index
-- read every evidence row or relation of the workspace: forgetting a source of 8,000 beliefs spent
-- 10 s in the relation cascade, one of 2,000 quotes 2.7 s in the evidence one, time quadratic in
-- the workspace. Keyed by the id alone (a random uuid), not led by workspace_id: an index that is
-- is a candidate for every probe of the workspace by any other key, and a plan made while the table
-- looked empty took such an index for a probe by to_belief and read every relation of the workspace
-- for each. Never edit: change functions in sql/ (re-applied after every upgrade).

create index evidence_justification on beliefdb.evidence (justification_id);
create index relation_from_belief on beliefdb.relation (from_belief);
