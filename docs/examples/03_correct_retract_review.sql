-- Previews and the changes they preview (rule 7): correct a belief, retract a source or a
-- version (and undo it), then resolve what the review queue holds.
\ir 01_story.sql

-- what correcting the final-sale belief would do; nothing is written
select cardinality(would_flag) as would_flag, cardinality(would_hold) as would_hold,
       cardinality(still_supported) as still_supported, revision, proposed
  from beliefdb.correction_preview(:'sale');
select revision as rev from beliefdb.correction_preview(:'sale') \gset

-- apply it with the revision the preview saw (rules 6 and 7)
select cardinality(flagged) as flagged, cardinality(superseded) as superseded, already_applied
  from beliefdb.apply_correction(:'sale', 'Order 1042 was bought at full price.', 'full price',
                                 'dba:alice', 'the sale flag was a data-entry error', :rev);

-- the same correction again is a no-op that says so; any other is refused: the belief is superseded now,
-- and its replacement is what to correct (not_correctable, naming it)
select already_applied from beliefdb.apply_correction(:'sale', 'Order 1042 was bought at full price.', 'full price',
                                                      'dba:alice', 'the sale flag was a data-entry error', :rev);
select already_applied from beliefdb.apply_correction(:'sale', 'Order 1042 was bought at a discount.', 'discount',
                                                      'dba:bob', 'another reading', :rev);

-- the old belief is superseded (its revision moved by two); the replacement rests on the reviewer's text
select status, revision, confidence, confidence_kind, statement
  from beliefdb.belief where subject = 'order_1042' and attribute = 'sale' order by revision desc;
select b.statement, e.quote, e.source like 'correction:%' as correction_source, e.authority, e.version_label
  from beliefdb.belief b join beliefdb.belief_evidence e on e.belief_id = b.id
 where b.confidence_kind = 'human_correction';

-- a retraction previewed is exactly the retraction applied, and the preview writes nothing
select count(*) as audit_events from beliefdb.audit_event \gset
select beliefdb.retract_preview('source', 'return-policy.md') as preview \gset
select count(*) = :audit_events as preview_wrote_nothing from beliefdb.audit_event;
select beliefdb.retract('source', 'return-policy.md', 'withdrawn pending legal review') = :'preview'::beliefdb.changes
       as preview_is_the_apply;
select value, status from beliefdb.belief where subject = 'return_policy' order by value;
select cardinality(started_holding) as started_holding from beliefdb.retract('source', 'return-policy.md', null, p_undo => true);
select value, status from beliefdb.belief where subject = 'return_policy' order by value;

-- retracting v3.3 puts v3.2 back in force: the 7-day rule is current again, and what rested
-- on it holds again but stays flagged (flags are durable)
select cardinality(flagged) as flagged, cardinality(started_holding) as started, cardinality(stopped_holding) as stopped
  from beliefdb.retract('version', 'return-policy.md', 'published too early', 2);
select value, status from beliefdb.belief where subject = 'return_policy' order by value;
select title, status from beliefdb.decision order by title;
select cardinality(started_holding) as started, cardinality(stopped_holding) as stopped
  from beliefdb.retract('version', 'return-policy.md', null, 2, p_undo => true);
select value, status from beliefdb.belief where subject = 'return_policy' order by value;

-- nothing to retract is BD004, an unknown target BD005
select beliefdb.retract('version', 'return-policy.md', 'withdrawn', 7);
select beliefdb.retract('planet', 'return-policy.md', 'withdrawn');

-- the review queue: reject the refusal (its email is cancelled with it), approve the forecast
select kind, subject from beliefdb.review_queue order by kind, subject;
select id as item from beliefdb.review_queue where node = :'d1' \gset
select status from beliefdb.review_resolve(:'item', 'rejected', 'the window is 15 days now: accept the return');
select id as item from beliefdb.review_queue where node = :'d2' \gset
select status from beliefdb.review_resolve(:'item', 'approved', 'forecast stays as is');
select kind, status, resolved_by, note like 'resolved with decision %' as with_its_decision,
       case when note like 'resolved with%' then '' else note end as note
  from beliefdb.review_item order by kind, note;
select title, d.status, a.status as action_status
  from beliefdb.decision d left join beliefdb.action a on a.workspace_id = d.workspace_id and a.decision_id = d.id
 order by title;
-- resolving it again: it is approved already (BD005)
select beliefdb.review_resolve(:'item', 'approved');

-- a tie under rule 8 (same authority, same time: two claims of one chat transcript) opens a
-- conflict; both beliefs are conflicting at half confidence until a person picks the winner
select jsonb_array_length(beliefdb.ingest_version('chat/1042.txt',
    'Customer: it arrived on March 1. Courier: delivered on March 2.',
    p_origin => 'conversation', p_authority => 'user',
    p_claims => '[{"statement": "Order 1042 was delivered on 2026-03-01.", "subject": "order_1042",
                   "attribute": "delivered_on", "value": "2026-03-01",
                   "quote": "it arrived on March 1", "start": 10, "end": 31},
                  {"statement": "Order 1042 was delivered on 2026-03-02.", "subject": "order_1042",
                   "attribute": "delivered_on", "value": "2026-03-02",
                   "quote": "delivered on March 2", "start": 42, "end": 62}]') -> 'conflicts') as conflicts;
select kind, reason from beliefdb.review_queue;
select value, status, confidence from beliefdb.belief where attribute = 'delivered_on' order by value;
select q.id as item, b.id as courier from beliefdb.review_queue q, beliefdb.belief b
 where q.kind = 'conflict' and b.value = '2026-03-02' \gset
-- approving needs a winner
select beliefdb.review_resolve(:'item', 'approved');
select status from beliefdb.review_resolve(:'item', 'approved', 'the courier scan wins', p_winner => :'courier');
select value, status, confidence from beliefdb.belief where attribute = 'delivered_on' order by value;
