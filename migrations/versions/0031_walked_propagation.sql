-- Frozen at revision 0031: a propagation walks what rests on a change by its stored supports
-- (issue 21). Never edit: change functions in sql/ (re-applied after every upgrade).

-- beliefdb.evaluate_closure and beliefdb.evaluate take p_walk (default false): the functions of
-- the old signatures are dropped, and sql/ makes the new ones when it is applied after this.
drop function if exists beliefdb.evaluate(uuid, uuid[], uuid[]);
drop function if exists beliefdb.evaluate_closure(uuid, uuid[], uuid[]);
