-- Frozen at revision 0049: a step stores its world, the highest (production < fixture < synthetic) of
-- what it rests on (rule 15), written by record_trace when the step is recorded: a memory a step writes
-- takes the world of its step, and the walk back stops at a step whose world is stored instead of going
-- through every earlier step of the run. Steps recorded before this revision have none (null): the
-- walk goes through them as before.
-- And the jobs whose text a forget masked are indexed by source (job_forgotten_lines): every ingest asks
-- for those of its source, and read every failed job's payload of the workspace to find none.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.step add column world beliefdb.provenance;
comment on column beliefdb.step.world is 'The world of what the step rests on (rule 15), the highest of production < fixture < synthetic; null for a step recorded before revision 0049';

create index job_forgotten_lines on beliefdb.job (workspace_id, (payload ->> 'source')) where payload ? 'forgotten_lines';
