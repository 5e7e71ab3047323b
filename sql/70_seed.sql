-- beliefdb: rows every installation starts with. Idempotent: re-applied by every migrate,
-- never overwriting what a DBA changed.

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

-- The workspace a newcomer works in without a flag.
insert into beliefdb.workspace (name) values ('default') on conflict do nothing;
