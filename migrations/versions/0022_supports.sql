-- Frozen at revision 0022: stored supports (issue 21). Never edit: change tables through a new
-- revision, and sql/schema/10_tables.sql with it.
-- Each node stores the justification it holds by now and a rank above the rank of every antecedent
-- of that justification (0: a premise; null: it does not hold), so supports are well-founded; the
-- out rows of beliefdb.adjacency that carry a support say so. beliefdb.evaluate_closure returns the
-- supports too: its result type changes, so it is dropped here and re-created by the re-applied
-- SQL (its callers name it as text).
alter table beliefdb.node add column if not exists support uuid, add column if not exists support_rank bigint;
alter table beliefdb.adjacency add column if not exists support boolean;
create index if not exists adjacency_support on beliefdb.adjacency (workspace_id, node) include (justification, consequent)
    where entry = 'out' and support;
drop function if exists beliefdb.evaluate_closure(uuid, uuid[], uuid[]);

-- Supports of what holds now, level by level from the premises: a node takes the first (by id)
-- justification whose antecedents are all current and ranked at an earlier level. The stored
-- holding is the least fixpoint, so every node that holds gets one.
do $$
declare
    v_ws uuid;
    v_level integer;
    v_rows bigint;
begin
    for v_ws in select w.id from beliefdb.workspace w loop
        update beliefdb.node n
           set support_rank = 0
         where n.workspace_id = v_ws and n.holds
           and (n.kind in ('fragment', 'correction')
                or (n.kind = 'step'
                    and (exists (select from beliefdb.step s
                                  where s.workspace_id = n.workspace_id and s.id = n.id and s.kind = 'user_input')
                         or not exists (select from beliefdb.justification j
                                         where j.workspace_id = n.workspace_id and j.consequent = n.id))));
        v_level := 0;
        loop
            v_level := v_level + 1;
            update beliefdb.node n
               set support = c.id, support_rank = v_level
              from (select distinct on (j.consequent) j.consequent, j.id
                      from beliefdb.justification j
                      join beliefdb.node t on t.workspace_id = j.workspace_id and t.id = j.consequent
                     where j.workspace_id = v_ws and t.holds and t.support_rank is null
                       and not exists (select from beliefdb.justification_antecedent a
                                         join beliefdb.node m on m.workspace_id = a.workspace_id and m.id = a.antecedent
                                        where a.workspace_id = j.workspace_id and a.justification_id = j.id
                                          and not (m.current and m.support_rank is not null))
                     order by j.consequent, j.id) c
             where n.workspace_id = v_ws and n.id = c.consequent;
            get diagnostics v_rows = row_count;
            exit when v_rows = 0;
        end loop;
    end loop;
end
$$;
-- the out rows that carry a support
update beliefdb.adjacency x
   set support = true
  from beliefdb.node c
  join beliefdb.justification_antecedent a on a.workspace_id = c.workspace_id and a.justification_id = c.support
 where x.workspace_id = a.workspace_id and x.node = a.antecedent and x.entry = 'out'
   and x.justification = a.justification_id;
