-- Truth at the edges (docs/rules.md rules 14 to 18 and 7), in a workspace of its own, acting as
-- the principal ops.
insert into beliefdb.workspace (name) values ('edges');
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'edges'), false) is not null as bound;
select set_config('beliefdb.principal', 'ops', false) as principal;
set role beliefdb_app;

-- Rule 15, labels are separate worlds: a fixture saying 15 days from an official source does not
-- touch the production rule, and the same quote in a fixture file is a fixture belief of its own
select beliefdb.ingest_version('policy.md', 'Returns are accepted within 7 days of delivery.',
    p_authority => 'internal',
    p_claims => '[{"statement": "Returns are accepted within 7 days of delivery.", "subject": "return_policy",
                   "attribute": "window", "value": "7 days", "quote": "Returns are accepted within 7 days of delivery.",
                   "start": 0, "end": 47}]') -> 'superseded' as superseded;
select beliefdb.ingest_version('fixtures/policy.md', 'Returns are accepted within 15 days of delivery.',
    p_authority => 'official', p_provenance => 'fixture',
    p_claims => '[{"statement": "Returns are accepted within 15 days of delivery.", "subject": "return_policy",
                   "attribute": "window", "value": "15 days", "quote": "Returns are accepted within 15 days of delivery.",
                   "start": 0, "end": 48}]') -> 'superseded' as superseded;
select beliefdb.ingest_version('fixtures/copy.md', 'Returns are accepted within 7 days of delivery.',
    p_provenance => 'fixture',
    p_claims => '[{"statement": "Returns are accepted within 7 days of delivery.", "subject": "return_policy",
                   "attribute": "window", "value": "7 days", "quote": "Returns are accepted within 7 days of delivery.",
                   "start": 0, "end": 47}]') -> 'corroborated' as corroborated;
select value, status, provenance, confidence,
       (select count(*) from beliefdb.evidence e where e.belief_id = b.id) as evidence
  from beliefdb.belief b where subject = 'return_policy' order by provenance, value;

-- Rule 16, expiry: a belief whose valid time has ended holds but is not current, so what rests
-- on it alone is flagged, without anyone touching it
select beliefdb.ingest_version('holiday.md', 'Holiday returns are accepted until 31 January.',
    p_claims => '[{"statement": "Holiday returns are accepted until 31 January.", "subject": "holiday_returns",
                   "attribute": "accepted", "value": "yes", "quote": "Holiday returns are accepted until 31 January.",
                   "start": 0, "end": 46, "valid_to": "2027-02-01T00:00:00Z"}]') -> 'accepted' -> 0 ->> 'id' as holiday \gset
select id as d from beliefdb.decide('Accept the holiday return of order 2001', format('[["%s"]]', :'holiday')::jsonb) \gset
select status as action from beliefdb.act(:'d', 'Send the courier');
-- February: the clock passes the end of its valid time
set beliefdb.now = '2027-02-02T00:00:00Z';
select expired, cardinality((changes).flagged) as flagged, cardinality((changes).held) as held from beliefdb.expire();
select b.status, n.holds, n.current from beliefdb.belief b join beliefdb.node n on n.id = b.id where b.id = :'holiday';
select title, status from beliefdb.decision where id = :'d';
-- as of a moment inside its valid time it is still what it was
select b.status from beliefdb.beliefs_as_of('2027-01-15T00:00:00Z') b where b.id = :'holiday';
-- nothing more is due
select expired from beliefdb.expire();
reset beliefdb.now;

-- Rule 17, sources have owners: bob's new text for ops's source changes nothing; it is a proposal
select set_config('beliefdb.principal', 'bob', false) as principal;
select r ->> 'proposed' as proposed, r ->> 'owner' as owner, r ->> 'review_item' as item
  from beliefdb.ingest_version('policy.md', 'Returns are accepted within 30 days of delivery.') r \gset
select :'proposed' as proposed, :'owner' as owner;
select kind, subject, proposed_by, reason from beliefdb.review_queue where kind = 'version_proposed';
-- only the owner resolves it
select beliefdb.review_resolve(:'item', 'rejected');
select set_config('beliefdb.principal', 'ops', false) as principal;
select status from beliefdb.review_resolve(:'item', 'rejected');

-- Rule 18, repeated ingest is a no-op that says so
select r ->> 'new_version' as new_version, r ->> 'note' as note, jsonb_array_length(r -> 'accepted') as accepted
  from beliefdb.ingest_version('policy.md', 'Returns are accepted within 7 days of delivery.') r;

-- Rule 7, previews are the change rolled back: exact, and nothing stays written, not even audit
select count(*) as audit_events from beliefdb.audit_event \gset
select to_jsonb(beliefdb.retract_preview('source', 'policy.md')) - 'proposed' as preview \gset
select count(*) = :audit_events as preview_wrote_nothing from beliefdb.audit_event;
select to_jsonb(beliefdb.retract('source', 'policy.md', 'poisoned')) - 'proposed' = :'preview'::jsonb as preview_is_the_apply;

-- Rule 14, forgetting a subject masks its text in every version of its sources
select beliefdb.ingest_version('chat-dana', 'Hi, this is Dana. My phone number is +49 30 9876 5432. Ship to Hauptstrasse 5.',
    p_origin => 'conversation', p_authority => 'user',
    p_claims => '[{"statement": "Dana''s phone number is +49 30 9876 5432.", "subject": "customer_dana",
                   "attribute": "phone", "value": "+49 30 9876 5432", "quote": "+49 30 9876 5432", "start": 37, "end": 53}]')
    -> 'accepted' -> 0 ->> 'statement' as remembered;
select beliefs, evidence, redacted, preview from beliefdb.forget('subject', 'customer_dana', p_preview => true);
select count(*) as still_there from beliefdb.belief where subject = 'customer_dana';
select beliefs, evidence, redacted, preview from beliefdb.forget('subject', 'customer_dana');
select v.content, r.start_offset, r.end_offset, r.reason
  from beliefdb.source_version v join beliefdb.redaction r on r.source_version_id = v.id;
select count(*) as left_behind from beliefdb.belief where subject = 'customer_dana';
