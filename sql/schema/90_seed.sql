-- beliefdb: rows every installation starts with. Idempotent: re-applied by every migrate,
-- never overwriting what a DBA changed. Applied last: inserting the workspace default starts its
-- audit chain (the trigger of internal/28_audit.sql).

-- Default weights of the confidence model.
insert into beliefdb.confidence_policy (factor, key, weight, description) values
    ('authority', 'official', 0.90, 'an official source on its own'),
    ('authority', 'internal', 0.80, 'an internal source on its own'),
    ('authority', 'user', 0.65, 'a user''s statement on its own'),
    ('authority', 'agent', 0.50, 'an agent''s statement on its own'),
    ('authority', 'unverified', 0.30, 'an unverified source on its own'),
    ('conflict', 'open', 0.50, 'multiplier while a conflict with an equal rival is open'),
    ('correction', 'human_correction', 0.95, 'a reviewer''s correction, whatever the old belief''s confidence'),
    ('retrieval', 'low_confidence', 0.30, 'beliefs under this confidence are demoted and labelled in retrieval'),
    ('trace', 'memory', 0.50, 'a memory an agent wrote in a recorded run, with no quoted evidence')
on conflict do nothing;

-- Default half-lives: how fast confidence fades without new evidence, per kind of belief.
insert into beliefdb.confidence_half_life (kind, days, description) values
    ('fact', 365, 'facts change slowly'),
    ('rule', 180, 'rules are revised a few times a year'),
    ('policy', 90, 'policies are reviewed quarterly'),
    ('preference', 30, 'people change their minds'),
    ('procedure', 180, 'procedures drift with the tools'),
    ('event', 30, 'events are news for a month'),
    ('observation', 14, 'an observation ages fast'),
    ('other', 90, 'anything else')
on conflict do nothing;

-- The error codes beliefdb's SQL raises, one meaning each. These rows are beliefdb's own, not a
-- DBA's: re-applying brings a name or meaning up to date (and writes nothing when they are).
insert into beliefdb.error_code as e (code, name, meaning) values
    ('BD001', 'evidence_mismatch',
     'text that must be its source''s is not: a fragment''s text is not the source version''s text at its offsets, or an evidence quote is not its fragment''s text'),
    ('BD002', 'integrity_violation',
     'a change would break a rule the database keeps: source versions and fragments are immutable, labels are separate worlds, supersession is acyclic (so holding settles)'),
    ('BD003', 'unknown_workspace',
     'no workspace is bound to the session (beliefdb.workspace_id), or the bound one does not exist'),
    ('BD004', 'not_found',
     'an id, id prefix or name matches nothing in the bound workspace, or there is nothing to retract or restore'),
    ('BD005', 'invalid_input',
     'the request is refused as given: a value that is missing, out of range or of the wrong kind, or a step the current state of what it names does not allow'),
    ('BD006', 'ambiguous_id',
     'an id prefix matches more than one belief or node: give more of the id'),
    ('BD007', 'stale_correction_preview',
     'the belief''s revision is not the one the correction preview saw; nothing was written'),
    ('BD008', 'not_owner',
     'only the owner of a belief, decision, action or source may change it (propose a correction or a new version instead), and an owner never changes'),
    ('BD009', 'idempotency_key_reused',
     'an idempotency key already named another request (another belief, text, value, reviewer, reason or revision): nothing was written; a new request needs a new key'),
    ('BD010', 'clock_not_allowed',
     'the session fixed its clock (beliefdb.now) and its login may not write with a fixed clock (beliefdb_clock): nothing was written'),
    ('BD011', 'embedding_model_mismatch',
     'a vector is not of the workspace''s embedding model: another model than the one its vectors are of, or another dimension under the same name; nothing was stored'),
    ('BD900', 'preview_rolled_back',
     'internal: beliefdb._dry_run rolls a preview''s subtransaction back with it and catches it; never reaches a caller')
on conflict (code) do update set name = excluded.name, meaning = excluded.meaning
    where (e.name, e.meaning) is distinct from (excluded.name, excluded.meaning);

-- The workspace a newcomer works in without a flag.
insert into beliefdb.workspace (name) values ('default') on conflict do nothing;
