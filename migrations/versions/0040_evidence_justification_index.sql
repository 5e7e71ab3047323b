-- Frozen at revision 0040: beliefdb.evidence by justification (a justification's deletion cascades
-- here, one lookup per justification: without the index each read every evidence row of the
-- workspace, and forgetting a source of 2,000 quotes spent 2.7 s there, time quadratic in the
-- workspace). Never edit: change functions in sql/ (re-applied after every upgrade).

create index evidence_justification on beliefdb.evidence (workspace_id, justification_id);
