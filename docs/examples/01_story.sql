-- The return-policy story that docs/dba.md follows (the other examples start with `\ir 01_story.sql`): two sources, a derived belief, two
-- decisions and an action; then the policy changes and what rested on the old rule is flagged.
-- sql/schema/90_seed.sql created the workspace 'default'; bind it, name yourself, take the application role.
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'default'), false) is not null as bound;
select set_config('beliefdb.principal', 'dba:alice', false) as principal;
set role beliefdb_app;

-- v3.2: "Returns are accepted within 7 days of delivery." (offsets 0..47)
select r ->> 'new_version' as new_version, jsonb_array_length(r -> 'accepted') as accepted
  from beliefdb.ingest_version(
    'return-policy.md',
    'Returns are accepted within 7 days of delivery.',
    p_authority => 'official', p_label => 'v3.2',
    p_claims => '[{"statement": "Returns are accepted within 7 days of delivery.",
                   "subject": "return_policy", "attribute": "window", "value": "7 days", "kind": "policy",
                   "quote": "Returns are accepted within 7 days of delivery.", "start": 0, "end": 47}]') r;

-- an independent fact from the order system (offsets 0..40)
select jsonb_array_length(beliefdb.ingest_version(
    'orders/1042.txt',
    'Order 1042 was bought in the final sale.',
    p_claims => '[{"statement": "Order 1042 was bought in the final sale.",
                   "subject": "order_1042", "attribute": "sale", "value": "final",
                   "quote": "Order 1042 was bought in the final sale.", "start": 0, "end": 40}]') -> 'accepted') as accepted;

select id as b7 from beliefdb.belief where subject = 'return_policy' and value = '7 days' \gset
select id as sale from beliefdb.belief where subject = 'order_1042' and attribute = 'sale' \gset

-- a belief derived from both (one justification, both needed)
select status as derived
  from beliefdb.derive('Order 1042 cannot be refunded.', 'order_1042', 'refundable', 'no', array[:'b7', :'sale']);

-- a decision on the 7-day rule, an action carrying it out, and a decision with two alternative reasons
-- (a belief, decision or action is named by its id or a unique prefix of it)
select id as d1 from beliefdb.decide('Refuse the return of order 1042', format('[["%s"]]', :'b7')::jsonb) \gset
select id as a1 from beliefdb.act(left(:'d1', 8), 'Email the customer that the return window has closed') \gset
select id as d2 from beliefdb.decide('Keep order 1042 out of the refund forecast',
                                     format('[["%s"], ["%s"]]', :'b7', :'sale')::jsonb) \gset

-- dry run: what if the 7-day rule stopped holding? Nothing is written (rules 4, 5 and 7).
select kind, effect, coalesce(detail ->> 'title', detail ->> 'description', '') as what,
       jsonb_array_length(coalesce(detail -> 'by', '[]')) as kept_by
  from beliefdb.impact(array[:'b7'])
 order by effect, kind, what;

-- a day later (every session of these examples starts at 2026-11-30 09:00 UTC: beliefdb.now)
set beliefdb.now = '2026-12-01T09:00:00Z';

-- v3.3: the same source, 15 days (offsets 0..48); rule 8 prefers the more recent version
select jsonb_array_length(r -> 'superseded') as superseded, r ->> 'new_version' as new_version,
       jsonb_array_length(r -> 'accepted') as accepted
  from beliefdb.ingest_version(
    'return-policy.md',
    'Returns are accepted within 15 days of delivery.',
    p_label => 'v3.3',
    p_claims => '[{"statement": "Returns are accepted within 15 days of delivery.",
                   "subject": "return_policy", "attribute": "window", "value": "15 days", "kind": "policy",
                   "quote": "Returns are accepted within 15 days of delivery.", "start": 0, "end": 48}]') r;
select id as b15 from beliefdb.belief where subject = 'return_policy' and value = '15 days' \gset

-- the refusal lost its only reason: flagged, its email held; the forecast keeps the final-sale reason
select value, status from beliefdb.belief where subject = 'return_policy' order by value;
select title, status from beliefdb.decision order by title;
select description, status from beliefdb.action;
