-- Frozen at revision 0051: a decision, an action and an outcome may carry an idempotency key, as a
-- correction does (rule 18 of docs/rules.md): an agent that retries a request after a timeout, with
-- the same key and the same content, records nothing again and is answered the first call's result,
-- marked already_applied; the same key with other content is refused (idempotency_key_reused, BD009).
-- A turn appended to a conversation takes one too: sent again without a time (said now), it was a
-- second turn and a second current belief. A key names one request of its kind in its workspace. A decision keeps the SHA-256 of the reasons
-- the keyed request gave, as the beliefs they resolve to (sorted and once: a belief cited by its id or
-- a prefix is the same request), and of the run it was recorded in (beliefdb._decision_request). What decide, decide_in_run, act, derive and
-- record_outcome return says whether it was such a repeat. And an index finds the beliefs whose value
-- keeps a run of whitespace or a tab, as stored before extracted values were spelled with single
-- spaces, so that a claim spelled anew is the same belief, not a conflict with itself. A review
-- item's verdict (review_resolution) names the other review items it closed. An index finds the done
-- jobs of a source (job_submit queues no text its source holds in force already, read with the same
-- extractor), and a job failed for good keeps no run_after after its failure.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.decision add column idempotency_key text, add column request_sha256 bytea,
    add unique (workspace_id, idempotency_key);
alter table beliefdb.action add column idempotency_key text, add unique (workspace_id, idempotency_key);
alter table beliefdb.outcome add column idempotency_key text, add unique (workspace_id, idempotency_key);

-- A turn appended with a key keeps it (append_turn), and whether the request gave no time (stamped: its
-- time is the one beliefdb gave it); its words, speaker and conversation are compared with the turn's own,
-- never kept twice (no digest of words a forget later masks: rule 14). One index finds a key's turn.
alter table beliefdb.fragment add column idempotency_key text, add column stamped boolean;
create unique index fragment_idempotency_key on beliefdb.fragment (workspace_id, idempotency_key)
    where idempotency_key is not null;
comment on column beliefdb.fragment.idempotency_key is 'The idempotency key of the request that appended this turn (append_turn; rule 18), unique in its workspace';
comment on column beliefdb.fragment.stamped is 'Of a turn appended with an idempotency key: whether its request gave no time (spoken_at is when it was stored)';

alter type beliefdb.recorded add attribute already_applied boolean;
alter type beliefdb.run_decision add attribute already_applied boolean;
alter type beliefdb.outcome_recorded add attribute already_applied boolean;

-- A review item's verdict names the other review items it resolved: settled by it (a correction
-- proposed of the belief a conflict's approval superseded), or resolved with it (a flagged decision's
-- held actions).
alter type beliefdb.review_resolution add attribute closed jsonb;
comment on type beliefdb.review_resolution is 'A review item approved or rejected, with the report of what an approved proposal or conflict applied and the other review items the verdict closed';

create index belief_spaced_value on beliefdb.belief (workspace_id, subject, attribute)
    where value ~ '[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]{2}|[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]';

-- The done jobs of a source, for job_submit to find whether the text in force was read with the
-- extractor a payload names (a drop folder submitted again queues no file its source holds already).
create index job_done_source on beliefdb.job (workspace_id, (payload ->> 'source'), id) where status = 'done';

-- A job failed for good is tried no more: no run_after after it failed (job_fail kept the backoff of a
-- retry that would never come, and beliefdb jobs showed it pending).
update beliefdb.job set run_after = finished_at where status = 'failed' and run_after > finished_at;
