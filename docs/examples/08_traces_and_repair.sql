-- Agent traces and rollback repair (rule 10). A concierge agent remembers guest 7 as a VIP from a
-- forum post; in a second session it reads that memory, books the chef's table and writes a
-- table preference; the CRM confirms the membership on its own. Ids are the caller's (the
-- library makes them with uuid4): fixed ones here, so the output is the same on every run.
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'default'), false) is not null as bound;
select set_config('beliefdb.principal', 'dba:alice', false) as principal;
set role beliefdb_app;
select '00000000-0000-4000-8000-000000000001' as run1, '00000000-0000-4000-8000-000000000002' as web,
       '00000000-0000-4000-8000-000000000003' as w1, '00000000-0000-4000-8000-000000000004' as vip \gset

-- session 1: a forum page (recorded with no inputs: taken as given) and the memory written from it
select steps, memories from beliefdb.record_trace(
    jsonb_build_object('id', :'run1', 'agent', 'concierge', 'task', 'get to know guest 7'),
    (select jsonb_agg(jsonb_build_object('id', id, 'seq', seq, 'kind', kind, 'payload', payload::jsonb))
       from (values (:'web', 0, 'observation',  '{"page": "forum: guest 7 is a VIP"}'),
                    (:'w1',  1, 'memory_write', '{"key": "status"}')) s (id, seq, kind, payload)),
    jsonb_build_array(jsonb_build_object('id', :'vip', 'step', :'w1',
                                         'subject', 'guest:7', 'attribute', 'status', 'value', 'VIP')),
    jsonb_build_array(jsonb_build_object('from_node', :'web', 'to_node', :'w1', 'kind', 'cites')));

select '00000000-0000-4000-8000-000000000010' as run2, '00000000-0000-4000-8000-000000000011' as u,
       '00000000-0000-4000-8000-000000000012' as r, '00000000-0000-4000-8000-000000000013' as t,
       '00000000-0000-4000-8000-000000000014' as o, '00000000-0000-4000-8000-000000000015' as k,
       '00000000-0000-4000-8000-000000000016' as p, '00000000-0000-4000-8000-000000000017' as w,
       '00000000-0000-4000-8000-000000000018' as pref, '00000000-0000-4000-8000-000000000019' as n,
       '00000000-0000-4000-8000-000000000020' as a \gset

-- session 2: book dinner; the agent reads the VIP memory, and the CRM confirms membership on its own
select steps, memories from beliefdb.record_trace(
    jsonb_build_object('id', :'run2', 'agent', 'concierge', 'task', 'book dinner for guest 7'),
    (select jsonb_agg(jsonb_build_object('id', id, 'seq', seq, 'kind', kind, 'payload', payload::jsonb))
       from (values (:'u', 0, 'user_input',   '{"text": "Book us a table for Friday."}'),
                    (:'r', 1, 'memory_read',  '{"key": "status", "value": "VIP"}'),
                    (:'t', 2, 'tool_call',    '{"tool": "crm.lookup", "guest": 7}'),
                    (:'o', 3, 'observation',  '{"member": true}'),
                    (:'k', 4, 'claim',        '{"member": true}'),
                    (:'p', 5, 'plan',         '{"table": "chef''s table"}'),
                    (:'w', 6, 'memory_write', '{"key": "table"}'),
                    (:'n', 7, 'plan',         '{"remind": "text the guest on Friday"}'),
                    (:'a', 8, 'answer',       '{"text": "Booked the chef''s table, members'' menu."}'))
            s (id, seq, kind, payload)),
    jsonb_build_array(jsonb_build_object('id', :'pref', 'step', :'w', 'kind', 'preference',
                                         'subject', 'guest:7', 'attribute', 'table', 'value', 'chef''s table')),
    (select jsonb_agg(jsonb_build_object('from_node', f, 'to_node', t, 'kind', kind))
       from (values (:'vip', :'r', 'reads'),
                    (:'u', :'t', 'initiates'),
                    (:'t', :'o', 'produces'),
                    (:'r', :'k', 'cites'), (:'o', :'k', 'supports'),
                    (:'u', :'p', 'initiates'), (:'r', :'p', 'cites'),
                    (:'p', :'w', 'cites'),
                    (:'u', :'n', 'initiates'), (:'n', :'p', 'follows'),
                    (:'p', :'a', 'cites'), (:'k', :'a', 'cites')) e (f, t, kind)));

-- the steps of session 2 and their reasons: the claim #4 has two justifications (the memory read,
-- or the CRM observation alone), the plan #5 one needing two antecedents; follows is not a reason
select s.seq, s.kind, a.edge_kind,
       (select count(*) from beliefdb.justification_antecedent x
         where x.workspace_id = j.workspace_id and x.justification_id = j.id) as of_its_reason,
       coalesce('#' || i.seq || ' ' || i.kind, 'memory ' || m.attribute) as antecedent
  from beliefdb.step s
  join beliefdb.justification j on j.workspace_id = s.workspace_id and j.consequent = s.id
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  left join beliefdb.step i on i.workspace_id = a.workspace_id and i.id = a.antecedent
  left join beliefdb.belief m on m.workspace_id = a.workspace_id and m.id = a.antecedent
 where s.run_id = :'run2'
 order by s.seq, a.edge_kind, antecedent;
select kind, count(*) from beliefdb.trace_edge group by kind;

-- the plan if the VIP memory is faulty: the claim is preserved (the CRM supports it on its own),
-- so the answer needs only the read and the plan re-run
select p.action, p.seq, coalesce(p.step_kind, 'memory ' || b.attribute) as what, p.reason,
       (select array_agg('#' || x.seq || ' ' || x.kind) from beliefdb.step x where x.id = any(p.saved_by)) as saved_by
  from beliefdb.repair_plan(array[:'vip']) p
  left join beliefdb.belief b on b.workspace_id = beliefdb.current_workspace_id() and b.id = p.node
 order by array_position(array['delete', 'quarantine', 'invalidate', 'replay', 'preserve'], p.action), p.seq;
-- without the independent-evidence check, the claim is replayed too
select p.action, p.seq, p.step_kind
  from beliefdb.repair_plan(array[:'vip'], p_independent_evidence => false) p
 where p.action in ('invalidate', 'replay')
 order by p.action, p.seq;
select jsonb_array_length(beliefdb.repair_plan_json(array[:'vip'])) as items;

-- apply it: memories retracted or quarantined, steps invalidated or pending replay
select cardinality(plan) as plan_items, cardinality((changes).stopped_holding) as stopped_holding
  from beliefdb.repair_apply(array[:'vip']);
select id as repair from beliefdb.repair \gset
select s.seq, s.kind, s.status, n.holds, split_part(n.retraction_reason, ' by repair', 1) as retracted
  from beliefdb.step s join beliefdb.node n on n.workspace_id = s.workspace_id and n.id = s.id
 where s.run_id = :'run2' order by s.seq;
select attribute, value, status, split_part(n.retraction_reason, ' by repair', 1) as retracted
  from beliefdb.belief b join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id
 where subject = 'guest:7' order by attribute;

-- the replay branch (driven from Python by db.repair_replay; by hand here): its parent is the
-- old run, each step names the step it re-runs
select '00000000-0000-4000-8000-000000000030' as run3, '00000000-0000-4000-8000-000000000031' as r2,
       '00000000-0000-4000-8000-000000000032' as p2, '00000000-0000-4000-8000-000000000033' as a2 \gset
select steps, memories from beliefdb.record_trace(
    jsonb_build_object('id', :'run3', 'agent', 'concierge', 'task', 'book dinner for guest 7', 'parent', :'run2'),
    (select jsonb_agg(jsonb_build_object('id', id, 'seq', seq, 'kind', kind, 'payload', payload::jsonb,
                                         'replay_of', replay_of))
       from (values (:'r2', 0, 'memory_read', '{"key": "status", "value": null}', :'r'),
                    (:'p2', 1, 'plan',        '{"table": "window table"}', :'p'),
                    (:'a2', 2, 'answer',      '{"text": "Booked a window table, members'' menu."}', :'a'))
            s (id, seq, kind, payload, replay_of)),
    '[]',
    (select jsonb_agg(jsonb_build_object('from_node', f, 'to_node', t, 'kind', kind))
       from (values (:'u', :'p2', 'initiates'), (:'r2', :'p2', 'cites'),
                    (:'p2', :'a2', 'cites'), (:'k', :'a2', 'cites')) e (f, t, kind)));
select beliefdb.repair_replayed(:'repair');
select r.task, r.parent_run_id is not null as replay, s.seq, s.kind, s.status, n.holds, s.payload ->> 'text' as answer
  from beliefdb.step s
  join beliefdb.node n on n.workspace_id = s.workspace_id and n.id = s.id
  join beliefdb.run r on r.workspace_id = s.workspace_id and r.id = s.run_id
 where s.run_id in (:'run2', :'run3') and s.kind in ('memory_read', 'plan', 'answer')
 order by replay, s.seq;
select replayed_at is not null as replayed from beliefdb.repair where id = :'repair';

-- the errors: no faulty memory (BD005), not a memory (a step: BD005), a reason added later (BD005)
select * from beliefdb.repair_plan('{}');
select * from beliefdb.repair_plan(array[:'u']);
select beliefdb.record_trace(jsonb_build_object('id', :'run2'), '[]', '[]',
       jsonb_build_array(jsonb_build_object('from_node', :'o', 'to_node', :'p', 'kind', 'supports')));
