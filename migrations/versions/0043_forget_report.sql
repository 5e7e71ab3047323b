-- Frozen at revision 0043: what a forget reports (rule 14 of docs/rules.md). Its report counts the
-- queued jobs and the proposals whose text it masked (jobs, proposals), and lists where people typed
-- a forgotten subject's name (mentions: a decision's title, a run's task...), which it leaves as typed.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter type beliefdb.forget_result add attribute jobs integer, add attribute proposals integer,
                                  add attribute mentions jsonb;
