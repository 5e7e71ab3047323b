-- Frozen at revision 0042: a run has an owner, the principal that recorded it, and only its owner
-- records steps and decisions in it (rule 17 of docs/rules.md): another principal of the workspace
-- could append steps to a run that was not theirs, and decide in it citing what it had been shown
-- (rule 19). A run recorded before takes its agent as owner (the recording principal, unless the
-- recorder named another agent). Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.run add column owner text;
update beliefdb.run set owner = agent;
alter table beliefdb.run alter column owner set default beliefdb.current_principal(),
                         alter column owner set not null;
