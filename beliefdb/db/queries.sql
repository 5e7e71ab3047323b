-- The SQL beliefdb's Python side sends, one named statement per block (procrastinate's
-- queries.sql format), loaded once by beliefdb.db.queries and sent as ``Q.<name>``. Rules cited as
-- "rule N" are those of docs/rules.md:
--
--     -- name_of_query --
--     -- what it does (one line, required)
--     the statement, with %s or %(name)s placeholders (values are never formatted in)
--
-- tests/test_queries.py checks that every block is used and that each one plans against the
-- migrated schema.

-- audit_verify --
-- Verify the bound workspace's audit chain (rule 12)
select ok, events, first_broken, problem from beliefdb.audit_verify();

-- page_walks_the_index --
-- A page of a listing reads the listing's index in order, for the rest of this transaction: with no statistics on workspace_id the planner takes a workspace for a few rows, and read all of them to sort (1.3 s for 20 of 550,000 beliefs; 0.4 ms so). Returns the setting before.
select pg_catalog.current_setting('enable_bitmapscan') as previous,
       pg_catalog.set_config('enable_bitmapscan', 'off', true);

-- page_done --
-- The planner's setting back as it was before the page
select pg_catalog.set_config('enable_bitmapscan', %s, true);

-- beliefs_current --
-- Current beliefs (of subject, attribute, among ids when given; production only unless fixtures; evidence by as_of),
-- in (subject, attribute, recorded_at, id) order: at most limit of them (all when null), after the belief after
select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
       b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       b.provenance::text as provenance
  from beliefdb.current_beliefs b
 where (%(subject)s::text is null or b.subject = %(subject)s)
   and (%(attribute)s::text is null or b.attribute = %(attribute)s)
   and (%(fixtures)s or b.provenance = 'production')
   and (%(ids)s::uuid[] is null or b.id = any(%(ids)s::uuid[]))
   and (%(after)s::uuid is null
        or (b.subject, b.attribute, b.recorded_at, b.id)
           > (select a.subject, a.attribute, a.recorded_at, a.id from beliefdb.belief a where a.id = %(after)s::uuid)
           -- the same bound on the index's columns alone, so a later page starts where the last ended
           and (b.subject, b.attribute)
               >= (select a.subject, a.attribute from beliefdb.belief a where a.id = %(after)s::uuid))
 order by b.subject, b.attribute, b.recorded_at, b.id
 limit %(limit)s;

-- current_subjects --
-- The subjects of the bound workspace's current beliefs (production only unless fixtures), sorted; with under, that subject and those below it (under and a dot, then anything: compared as text, not as a pattern)
select distinct b.subject
  from beliefdb.current_beliefs b
 where (%(under)s::text is null or b.subject = %(under)s
        or pg_catalog.left(b.subject, pg_catalog.length(%(under)s) + 1) = %(under)s || '.')
   and (%(fixtures)s or b.provenance = 'production')
 order by b.subject;

-- newest_current_beliefs --
-- Current beliefs newest first, those recorded together by id (production only unless fixtures), of subjects when given (each exactly), from offset, at most limit: a whole workspace's page reads belief_recent in order, a page of subjects reads their beliefs by subject
select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
       b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
       b.evidence_count::integer as evidence_count, b.provenance::text as provenance
  from beliefdb.current_beliefs b
 where (%(subjects)s::text[] is null or b.subject = any(%(subjects)s::text[]))
   and (%(fixtures)s or b.provenance = 'production')
 order by b.recorded_at desc, b.id
offset %(offset)s limit %(limit)s;

-- newest_current_beliefs_after --
-- The page of newest_current_beliefs after the belief after (the last of the page before): those recorded with it and after it by id, then those recorded before it, each part read from its index where it starts (one condition on both would read a whole run of beliefs recorded together, a bulk batch's thousands, from its first)
with bound as (
    select a.recorded_at from beliefdb.belief a where a.id = %(after)s::uuid
), listed as not materialized (
    select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
           b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
           b.evidence_count::integer as evidence_count, b.provenance::text as provenance
      from beliefdb.current_beliefs b
     where (%(subjects)s::text[] is null or b.subject = any(%(subjects)s::text[]))
       and (%(fixtures)s or b.provenance = 'production')
)
select x.* from (
    (select l.* from listed l
      where l.recorded_at = (select recorded_at from bound) and l.id > %(after)s::uuid
      order by l.id limit %(limit)s)
    union all
    (select l.* from listed l
      where l.recorded_at < (select recorded_at from bound)
      order by l.recorded_at desc, l.id limit %(limit)s)
) x
 order by x.recorded_at desc, x.id
 limit %(limit)s;

-- beliefs_all --
-- Every belief with its status, filtered like beliefs_current (evidence counted by as_of, now when null)
select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
       b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       b.provenance::text as provenance
  from beliefdb.belief b
 where (%(subject)s::text is null or b.subject = %(subject)s)
   and (%(attribute)s::text is null or b.attribute = %(attribute)s)
   and (%(fixtures)s or b.provenance = 'production')
   and (%(ids)s::uuid[] is null or b.id = any(%(ids)s::uuid[]))
   and (%(after)s::uuid is null
        or (b.subject, b.attribute, b.recorded_at, b.id)
           > (select a.subject, a.attribute, a.recorded_at, a.id from beliefdb.belief a where a.id = %(after)s::uuid)
           -- the same bound on the index's columns alone, so a later page starts where the last ended
           and (b.subject, b.attribute)
               >= (select a.subject, a.attribute from beliefdb.belief a where a.id = %(after)s::uuid))
 order by b.subject, b.attribute, b.recorded_at, b.id
 limit %(limit)s;

-- beliefs_as_of --
-- The beliefs believed at as_of, filtered like beliefs_current (evidence counted by as_of, now when null): beliefdb.beliefs_as_of's rows, each tested as it is read (beliefdb.believed_at: quoted, derived or remembered), so that a page or a subject reads only its own rows, not every belief of the workspace; then the page's status (beliefdb.status_at) and confidence then, all its confidences at once (beliefdb.confidences_at: what they derive from computed once, not for each row and path)
with page as materialized (
    select b
      from beliefdb.belief b
     where b.workspace_id = beliefdb.current_workspace_id()
       and (%(subject)s::text is null or b.subject = %(subject)s)
       and (%(attribute)s::text is null or b.attribute = %(attribute)s)
       and (%(fixtures)s or b.provenance = 'production')
       and (%(ids)s::uuid[] is null or b.id = any(%(ids)s::uuid[]))
       and (%(after)s::uuid is null
            or (b.subject, b.attribute, b.recorded_at, b.id)
               > (select a.subject, a.attribute, a.recorded_at, a.id from beliefdb.belief a where a.id = %(after)s::uuid)
               -- the same bound on the index's columns alone, so a later page starts where the last ended
               and (b.subject, b.attribute)
                   >= (select a.subject, a.attribute from beliefdb.belief a where a.id = %(after)s::uuid))
       and beliefdb.believed_at(b, %(as_of)s)
     order by b.subject, b.attribute, b.recorded_at, b.id
     limit %(limit)s
)
select (p.b).id, (p.b).statement, (p.b).subject, (p.b).attribute, (p.b).value, (p.b).kind, (p.b).scope,
       (p.b).valid_time, c.confidence, (p.b).confidence_kind::text as confidence_kind,
       beliefdb.status_at(p.b, %(as_of)s)::text as status, (p.b).revision, (p.b).owner, (p.b).recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = (p.b).workspace_id and e.belief_id = (p.b).id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       (p.b).provenance::text as provenance
  from page p
  left join beliefdb.confidences_at(beliefdb.current_workspace_id(), (select array_agg((x.b).id) from page x),
                                    %(as_of)s) c on c.belief_id = (p.b).id
 order by (p.b).subject, (p.b).attribute, (p.b).recorded_at, (p.b).id;

-- beliefs_by_ids --
-- These beliefs as they are now (evidence counted by as_of, now when null)
select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
       b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       b.provenance::text as provenance
  from beliefdb.belief b where b.id = any(%(ids)s);

-- beliefs_by_ids_as_of --
-- These beliefs as they were believed at as_of (quoted, derived or remembered), with the status and confidence they had then (evidence counted by as_of, now when null): those of beliefdb.beliefs_as_of, each tested by its key (the function tests every belief of the workspace); their confidences at once (beliefdb.confidences_at)
with found as materialized (
    select b
      from beliefdb.belief b
     where b.workspace_id = beliefdb.current_workspace_id() and b.id = any(%(ids)s)
       and beliefdb.believed_at(b, %(as_of)s)
)
select (f.b).id, (f.b).statement, (f.b).subject, (f.b).attribute, (f.b).value, (f.b).kind, (f.b).scope,
       (f.b).valid_time, c.confidence, (f.b).confidence_kind::text as confidence_kind,
       beliefdb.status_at(f.b, %(as_of)s)::text as status, (f.b).revision, (f.b).owner, (f.b).recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = (f.b).workspace_id and e.belief_id = (f.b).id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       (f.b).provenance::text as provenance
  from found f
  left join beliefdb.confidences_at(beliefdb.current_workspace_id(), (select array_agg((x.b).id) from found x),
                                    %(as_of)s) c on c.belief_id = (f.b).id;

-- beliefs_recorded_as_of --
-- These beliefs as they stood at as_of, believed then or not, those recorded by then (none of one that was not): the status each had then (beliefdb.belief_status_at: current or conflicting while live then, else retracted (quarantined: by a repair), superseded, unsupported or expired then), its confidence then (beliefdb.confidences_at), its evidence counted by as_of
with found as materialized (
    select b
      from beliefdb.belief b
     where b.workspace_id = beliefdb.current_workspace_id() and b.id = any(%(ids)s) and b.recorded_at <= %(as_of)s
)
select (f.b).id, (f.b).statement, (f.b).subject, (f.b).attribute, (f.b).value, (f.b).kind, (f.b).scope,
       (f.b).valid_time, c.confidence, (f.b).confidence_kind::text as confidence_kind,
       beliefdb.belief_status_at(f.b, %(as_of)s)::text as status, (f.b).revision, (f.b).owner, (f.b).recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = (f.b).workspace_id and e.belief_id = (f.b).id and e.role = 'supports'
           and e.created_at <= %(as_of)s)::integer
         as evidence_count,
       (f.b).provenance::text as provenance
  from found f
  left join beliefdb.confidences_at(beliefdb.current_workspace_id(), (select array_agg((x.b).id) from found x),
                                    %(as_of)s) c on c.belief_id = (f.b).id;

-- belief_by_id --
-- One belief as it is now (evidence counted by as_of, now when null)
select b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
       b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
           and e.created_at <= coalesce(%(as_of)s::timestamptz, (select beliefdb.clock())))::integer
         as evidence_count,
       b.provenance::text as provenance
  from beliefdb.belief b where b.id = %(id)s;

-- resolve_belief --
-- A belief id from a full id or a unique prefix
select beliefdb.resolve_belief(%s);

-- resolve_memory --
-- A faulty memory's id (a belief a step wrote, rule 10) from a full id or a unique prefix; anything else refused, named
select beliefdb.resolve_memory(%s);

-- listing_cursor --
-- Where a page of decisions or actions goes on: the creation time and id of the decision or action (of this kind) a full id or unique prefix names
select coalesce(d.created_at, a.created_at) as created_at, r.id
  from (select beliefdb.resolve_node(%s, array[%s]::beliefdb.node_kind[]) as id offset 0) r   -- (resolved once, not by the planner)
  left join beliefdb.decision d on d.workspace_id = beliefdb.current_workspace_id() and d.id = r.id
  left join beliefdb.action a on a.workspace_id = beliefdb.current_workspace_id() and a.id = r.id;

-- belief_evidence --
-- The evidence of one belief, recorded by as_of (all of it when null), each version in force or not as
-- it stood then (beliefdb.in_force_at; now when null), and whether its quote, its version or its source
-- was retracted then (a retracted quote supports nothing, rule 5; why lists the retraction with its reason)
select belief_id, role, quote, fragment_id, start_offset, end_offset, source,
       origin_type::text as origin_type, authority::text as authority,
       provenance::text as provenance, version, version_label, version_sha256,
       case when %(as_of)s::timestamptz is null then in_force
            else beliefdb.in_force_at(workspace_id, source_version_id, %(as_of)s) end as in_force,
       created_at, speaker, spoken_at,
       exists (select from beliefdb.retraction_period r
                where r.workspace_id = e.workspace_id
                  and (r.node_id = e.fragment_id or r.source_version_id = e.source_version_id
                       or r.source_id = e.source_id)
                  and r.retracted_at <= coalesce(%(as_of)s, beliefdb.clock())
                  and (r.restored_at is null or r.restored_at > coalesce(%(as_of)s, beliefdb.clock()))) as retracted
  from beliefdb.belief_evidence e
 where belief_id = %(id)s and (%(as_of)s::timestamptz is null or created_at <= %(as_of)s)
 order by in_force desc, version desc, start_offset;

-- confidence_factors --
-- The factors of one belief's confidence
select factor, detail, weight from beliefdb.confidence_factors(%s, %s);

-- confidence_factors_at --
-- The factors of one belief's confidence as they stood at a moment
select factor, detail, weight from beliefdb.confidence_factors_at(%s, %s, %s);

-- belief_history --
-- The supersessions and conflicts a belief took part in, by as_of (all when null), with when a supersession ended or a conflict was settled, and by what (by as_of), and whether each is in effect (now, or as of then): a supersession not ended whose newer side holds (rule 3); a conflict not settled whose two beliefs are both live (rule 8: current or conflicting)
select h.new_belief, h.new_statement, h.new_value, h.old_belief, h.old_statement, h.old_value,
       h.kind::text as kind, h.reason, h.at,
       case when %(as_of)s::timestamptz is null or h.ended <= %(as_of)s then h.ended end as ended,
       case when %(as_of)s::timestamptz is null or h.ended <= %(as_of)s then h.winner end as winner,
       case when %(as_of)s::timestamptz is null or h.ended <= %(as_of)s then h.settled_by end as settled_by,
       case when %(as_of)s::timestamptz is null and h.kind = 'conflicts_with'
                then h.ended is null and b.status in ('current', 'conflicting') and o.status in ('current', 'conflicting')
            when %(as_of)s::timestamptz is null then h.ended is null and coalesce(n.holds, false)
            when h.kind = 'conflicts_with'
                then (h.ended is null or h.ended > %(as_of)s) and beliefdb.live_at(b, %(as_of)s)
                     and beliefdb.live_at(o, %(as_of)s)
            else (h.ended is null or h.ended > %(as_of)s) and beliefdb.held_at(b, %(as_of)s) end as in_effect
  from beliefdb.belief_history h
  join beliefdb.belief b on b.workspace_id = h.workspace_id and b.id = h.new_belief
  join beliefdb.belief o on o.workspace_id = h.workspace_id and o.id = h.old_belief
  left join beliefdb.node n on n.workspace_id = h.workspace_id and n.id = h.new_belief
 where (h.new_belief = %(id)s or h.old_belief = %(id)s)
   and (%(as_of)s::timestamptz is null or h.at <= %(as_of)s)
 order by h.at;

-- belief_retractions --
-- The retractions of a belief and of the fragments, versions and sources its evidence comes from (beliefdb.retraction_period), by as_of (all when null: a restoration after as_of is not shown), oldest first
select x.what, x.name, x.version, p.retracted_at, p.reason,
       case when %(as_of)s::timestamptz is null or p.restored_at <= %(as_of)s then p.restored_at end as restored_at
  from (select 'belief' as what, b.statement as name, null::integer as version, b.id as node, null::uuid as source,
               null::uuid as source_version
          from beliefdb.belief b where b.id = %(id)s
        union
        select w.what, s.name, case when w.what <> 'source' then v.version end,
               case w.what when 'fragment' then f.id end, case w.what when 'source' then s.id end,
               case w.what when 'version' then v.id end
          from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         cross join (values ('fragment'), ('version'), ('source')) as w (what)
         where e.belief_id = %(id)s and e.role = 'supports') x
  join beliefdb.retraction_period p
    on p.node_id = x.node or p.source_id = x.source or p.source_version_id = x.source_version
 where %(as_of)s::timestamptz is null or p.retracted_at <= %(as_of)s
 order by p.retracted_at, x.what, x.name;

-- built_on_belief --
-- The decisions (and their actions) that cite a belief (those recorded by as_of, all when null), with their status and latest outcome (as they stood at as_of)
select d.id as decision_id, d.title,
       case when %(as_of)s::timestamptz is null then d.status else beliefdb.decision_status_at(d, %(as_of)s) end
           as decision_status,
       to_jsonb(case when %(as_of)s::timestamptz is null then beliefdb.latest_outcome(d.workspace_id, d.id)
                     else beliefdb.outcome_at(d.workspace_id, d.id, %(as_of)s) end) as outcome,
       coalesce(jsonb_agg(jsonb_build_object(
                    'id', a.id, 'description', a.description,
                    'status', case when %(as_of)s::timestamptz is null then a.status
                                   else beliefdb.action_status_at(a, %(as_of)s) end,
                    'outcome', to_jsonb(case when %(as_of)s::timestamptz is null
                                             then beliefdb.latest_outcome(a.workspace_id, a.id)
                                             else beliefdb.outcome_at(a.workspace_id, a.id, %(as_of)s) end))
                          order by a.created_at)
                filter (where a.id is not null), '[]') as actions
  from beliefdb.justification j
  join beliefdb.justification_antecedent x
    on x.workspace_id = j.workspace_id and x.justification_id = j.id
  join beliefdb.decision d on d.workspace_id = j.workspace_id and d.id = j.consequent
  left join beliefdb.action a on a.workspace_id = d.workspace_id and a.decision_id = d.id
                             and (%(as_of)s::timestamptz is null or a.created_at <= %(as_of)s)
 where x.antecedent = %(id)s
   and (%(as_of)s::timestamptz is null or (j.created_at <= %(as_of)s and d.created_at <= %(as_of)s))
 group by d.workspace_id, d.id, d.title, d.status, d.created_at
 order by d.created_at;

-- derived_from_belief --
-- The beliefs derived from a belief (recorded by as_of, all when null), with the status each had, whether its reason was live (at as_of) and its world: production ones only unless fixtures (rule 15)
select b.id as belief_id, b.statement,
       case when %(as_of)s::timestamptz is null then b.status else beliefdb.belief_status_at(b, %(as_of)s) end::text
           as status,
       case when %(as_of)s::timestamptz is null then j.unmet = 0
            else beliefdb.reason_live_at(j.workspace_id, j.id, %(as_of)s) end as live,
       b.provenance::text as provenance
  from beliefdb.justification_antecedent a
  join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
  join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.consequent
 where a.antecedent = %(id)s and a.edge_kind = 'derives'
   and (%(as_of)s::timestamptz is null or j.created_at <= %(as_of)s)
   and (%(fixtures)s or b.provenance = 'production')
 order by j.created_at, b.id;

-- calibration_matches --
-- The beliefs labelled lines name, by full id or id prefix, with their confidence
select f.line, b.id, b.confidence::numeric as confidence, b.confidence_kind::text as confidence_kind
  from unnest(%(full_ids)s::uuid[], %(full_lines)s::int[]) as f(id, line)
  join beliefdb.belief b on b.workspace_id = beliefdb.current_workspace_id() and b.id = f.id
union all
select p.line, b.id, b.confidence::numeric, b.confidence_kind::text
  from unnest(%(prefixes)s::text[], %(prefix_lines)s::int[]) as p(ref, line)
  join beliefdb.belief b on b.workspace_id = beliefdb.current_workspace_id()
                        and b.id::text like p.ref || '%%';

-- session_settings --
-- Set beliefdb's session settings (names, values), except those the connection string's options or
-- a DBA's alter role/database ... set chose for this session (the names forced win over the DBA's); each
-- setting's name, where its value came from, the value it had, and the session's user
select s.name, s.source, pg_catalog.current_setting(s.name), session_user::text,
       case when s.source not in ('client', 'user', 'database', 'database user')
                 or (s.name = any(%s::text[]) and s.source <> 'client')
            then pg_catalog.set_config(s.name, v.value, false) end
  from unnest(%s::text[], %s::text[]) as v(name, value)
  join pg_catalog.pg_settings s on s.name = v.name;

-- roles_hint_again --
-- The command a refusal of schema/00_schema.sql (the roles) tells its reader to run again, for this transaction
select pg_catalog.set_config('beliefdb.again', %s, true);

-- beliefdb_schema_exists --
-- Whether the database holds beliefdb's schema (a restore goes into a database without it), the
-- session's user, the extensions the database has, each with its schema, and whether the session may
-- read the schema's revision (alembic's version table: schema_revision)
select to_regnamespace('beliefdb') is not null, current_user::text,
       coalesce((select pg_catalog.jsonb_object_agg(e.extname, n.nspname)
                   from pg_catalog.pg_extension e
                   join pg_catalog.pg_namespace n on n.oid = e.extnamespace), '{}'::jsonb),
       coalesce(pg_catalog.has_schema_privilege(to_regnamespace('beliefdb'), 'usage')
                and pg_catalog.has_table_privilege(to_regclass('beliefdb.alembic_version'), 'select'), false);

-- schema_revision --
-- The revision beliefdb's schema is at (a dump says it: it never migrates)
select max(version_num) from beliefdb.alembic_version;

-- audit_verify_every_workspace --
-- Every workspace's audit chain verified (rule 12), by name: as the schema owner, after a restore
select w.name, v.ok, v.events, v.first_broken, v.problem
  from beliefdb.workspace w
 cross join lateral beliefdb.audit_verify(w.id) v
 order by w.name;

-- beliefdb_installed --
-- Whether beliefdb is installed in this database
select to_regclass('beliefdb.workspace');

-- workspace_id_by_name --
-- The id (as text) of a workspace by its name
select id::text from beliefdb.workspace where name = %s;

-- act_as --
-- Act as the application role (set role), or as the reader's role for a login that is a member of beliefdb_reader and not of beliefdb_app (an auditor's: it reads and never writes, docs/rules.md rule 13); the role, and the login (the set role fails when it is a member of neither)
select pg_catalog.set_config('role',
           case when pg_catalog.to_regrole('beliefdb_reader') is not null
                     and pg_catalog.pg_has_role(session_user, 'beliefdb_reader', 'member')
                     and not (pg_catalog.to_regrole('beliefdb_app') is not null
                              and pg_catalog.pg_has_role(session_user, 'beliefdb_app', 'member'))
                then 'beliefdb_reader' else 'beliefdb_app' end, false),
       session_user::text;

-- bound_workspace_name --
-- The workspace this session is bound to, by name, and the login (no row when none is, or it was deleted since)
select w.name, session_user::text as login from beliefdb.workspace w where w.id = beliefdb.current_workspace_id();

-- vector_type --
-- pgvector's type, in whatever schema its extension was created, by its oid (as text: a type name
-- that regtype reads without usage on that schema, which a team's may not give the application role)
select t.oid::text
  from pg_catalog.pg_extension e
  join pg_catalog.pg_type t on t.typnamespace = e.extnamespace and t.typname = 'vector'
 where e.extname = 'vector';

-- composite_types --
-- The catalog entries psycopg's CompositeInfo holds (name, oid, array oid, regtype, field names and types in
-- order) of these composite types, in the order named, at once (psycopg's fetch reads one a round trip); a type
-- the database lacks has no row (oids as oid: above 2^31 an integer would turn them negative)
select n.name as named, t.typname::text as name, t.oid, t.typarray as array_oid,
       t.oid::regtype::text as regtype,
       array(select a.attname::text from pg_catalog.pg_attribute a
              where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum) as field_names,
       array(select a.atttypid from pg_catalog.pg_attribute a
              where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum) as field_types
  from unnest(%(names)s::text[]) with ordinality as n (name, ord)
  join pg_catalog.pg_type t on t.oid = pg_catalog.to_regtype(n.name)
 order by n.ord;

-- expire --
-- Process what expired since the last change (rule 16)
select * from beliefdb.expire();

-- expire_first --
-- Process what expired since the last change (rule 16), before a transaction's own work (nothing when the session fixed its clock: a read writes nothing, rule 13): whether that took the workspace's write lock (it did when something had expired)
select beliefdb.expire_before_read();

-- correction_preview --
-- What correcting a belief would change, nothing written
select * from beliefdb.correction_preview(%s, %s, %s);

-- apply_correction --
-- Correct a belief (or propose the correction to its owner)
select * from beliefdb.apply_correction(%s, %s, %s, %s, %s, %s, %s);

-- decide --
-- Record a decision and its reasons
select * from beliefdb.decide(%s, %s, %s);

-- decide_in_run --
-- Record a decision of a run, citing only what the run read and is current (rule 19)
select * from beliefdb.decide_in_run(%s, %s, %s, %s);

-- act --
-- Record an action carrying out a decision
select * from beliefdb.act(%s, %s, %s);

-- derive --
-- Record a belief derived from other beliefs
select * from beliefdb.derive(%s, %s, %s, %s, %s, %s);

-- belief_world --
-- The world a belief belongs to (rule 15)
select beliefdb.belief_provenance(beliefdb.current_workspace_id(), %s);

-- list_decisions --
-- Decisions, with whether each holds and its reasons (live or lost, and how many forgotten), optionally of one status, or the one a decision or action id names; oldest first, at most limit (all when null) after the cursor (after_at, after). A conflicting belief of a reason names the oldest open review item of its conflict (conflict_item; null when a reviewer rejected it, none open)
select d.id, d.title, d.status, d.revision, d.owner, d.created_at, n.holds,
       coalesce((select jsonb_agg(jsonb_build_object(
                            'justification', s.justification, 'live', s.live,
                            'beliefs', (select coalesce(jsonb_agg(jsonb_build_object('id', b.id, 'statement', b.statement,
                                                                                     'status', b.status,
                                                                                     'conflict_item', c.id)
                                                                  order by b.recorded_at, b.id), '[]')
                                          from beliefdb.belief b
                                          -- (a tie's item is about the pair, either way round; a rejected one
                                          -- leaves both conflicting with none open)
                                          left join lateral (select r.id from beliefdb.review_item r
                                                              where b.status = 'conflicting'
                                                                and r.workspace_id = b.workspace_id and r.kind = 'conflict'
                                                                and r.status = 'open' and b.id in (r.node, r.other_node)
                                                              order by r.created_at, r.id
                                                              limit 1) c on true
                                         where b.workspace_id = d.workspace_id and b.id = any(s.antecedents)))
                          order by s.live desc, s.justification)
                   from beliefdb.decision_support s
                  where s.workspace_id = d.workspace_id and s.decision = d.id), '[]') as reasons,
       d.forgotten_reasons
  from beliefdb.decision d
  join beliefdb.node n on n.workspace_id = d.workspace_id and n.id = d.id
 where d.workspace_id = beliefdb.current_workspace_id()
   and (%(status)s::text is null or d.status = %(status)s)
   and (%(of)s::text is null
        or d.id = (select coalesce(a.decision_id, r.id)
                     from (select beliefdb.resolve_node(%(of)s, '{decision,action}') as id) r
                     left join beliefdb.action a
                       on a.workspace_id = beliefdb.current_workspace_id() and a.id = r.id))
   -- (one row comparison with a subquery's row, no "after is null or ...": a plan made for any cursor
   -- starts the index at it; with the row's values written out it does not)
   and (d.created_at, d.id) > (select coalesce(%(after_at)s::timestamptz, '-infinity'),
                                      coalesce(%(after)s::uuid, '00000000-0000-0000-0000-000000000000'))
 order by d.created_at, d.id
 limit %(limit)s;

-- list_actions --
-- Actions, optionally of one status; oldest first, at most limit (all when null) after the cursor (after_at, after)
select a.id, a.decision_id, a.description, a.status, a.owner, a.created_at
  from beliefdb.action a
 where a.workspace_id = beliefdb.current_workspace_id()
   and (%(status)s::text is null or a.status = %(status)s)
   -- (one row comparison with a subquery's row, no "after is null or ...": a plan made for any cursor
   -- starts the index at it; with the row's values written out it does not)
   and (a.created_at, a.id) > (select coalesce(%(after_at)s::timestamptz, '-infinity'),
                                      coalesce(%(after)s::uuid, '00000000-0000-0000-0000-000000000000'))
 order by a.created_at, a.id
 limit %(limit)s;

-- first_recorded --
-- When the bound workspace recorded its first source version (every belief an as-of answer may give rests on a quote of one, rule 1), and whether a moment comes before it (the moment comes with its offset: one without a time zone is local time, beliefdb.inputs.check_moment)
select min(recorded_at), %s::timestamptz < min(recorded_at) from beliefdb.source_version;

-- workspace_model --
-- The embedding model of the bound workspace (and the one it is moving to)
select model, dim, target_model, target_dim from beliefdb.embedding_model;

-- store_embeddings --
-- Store a belief's embedding of one model, replacing any of the same model (run for many at once;
-- the vector comes typed by the oid of pgvector's type, which is named nowhere: it lives wherever
-- its extension was installed)
select beliefdb.store_embedding(%s, %s, %s);

-- beliefs_missing_embedding --
-- Beliefs (of ids, any when null) without a vector of the model, oldest first
select b.id, b.statement from beliefdb.belief b
 where (%(ids)s::uuid[] is null or b.id = any(%(ids)s))
   and not exists (select from beliefdb.belief_embedding e
                    where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.model = %(model)s)
 order by b.recorded_at, b.id
 limit %(limit)s;

-- count_missing_embeddings --
-- How many beliefs have no vector of a model
select count(*) from beliefdb.belief b
 where not exists (select from beliefdb.belief_embedding e
                    where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.model = %s);

-- record_embedding_model --
-- Record the workspace's embedding model unless one is recorded
select beliefdb.record_embedding_model(%s, %s);

-- set_target_model --
-- Start moving the workspace to another embedding model
select beliefdb.embedding_target(%s, %s);

-- switch_to_target_model --
-- Move the workspace to the model it was moving to, and drop the vectors of every other model
select beliefdb.embedding_switch(%s);

-- vector_dimensions --
-- The embedding dimensions of every workspace's model, and of a reembed's target
select distinct d.dim
  from beliefdb.embedding_model m
 cross join lateral (values (m.dim), (m.target_dim)) d (dim)
 where d.dim is not null
 order by d.dim;

-- may_build_vector_index --
-- Whether the session's user may run the DBA's vector index tool (the schema owner, or a user granted it)
select pg_catalog.has_function_privilege('beliefdb.ensure_vector_index(integer)', 'execute'), current_user::text;

-- index_build_settings --
-- What an index build of this transaction may take: memory (an IVFFlat build of 1M vectors needs ~0.9 GB),
-- and as long as it takes (a statement timeout of the role or database would cancel it)
select set_config('maintenance_work_mem', %s, true), set_config('statement_timeout', '0', true);

-- ensure_vector_index --
-- Create or rebuild the vector index a dimension's size calls for (the DBA's tool, run as the schema owner)
select beliefdb.ensure_vector_index(%s);

-- vector_index --
-- The vector index a dimension has (hnsw, ivfflat or none) and an IVFFlat index's lists
select case when i.ivf is not null then 'ivfflat' when i.hnsw is not null then 'hnsw' end as index,
       (select substring(o from '^lists=([0-9]+)$')::integer
          from pg_catalog.pg_class c, unnest(c.reloptions) o
         where c.oid = i.ivf and o like 'lists=%%') as lists
  from (select to_regclass(format('beliefdb.belief_embedding_ivf_%%s', %(dim)s::integer)) as ivf,
               to_regclass(format('beliefdb.belief_embedding_hnsw_%%s', %(dim)s::integer)) as hnsw) i;

-- relation_exists --
-- Whether a relation (here a vector index) exists
select to_regclass(%s) is not null;

-- bulk_analyze --
-- Gather planner statistics of the tables a bulk ingest grew
select beliefdb.bulk_analyze();

-- bulk_copy_claims --
-- Stage a bulk batch's gated claims (binary COPY into this transaction's staging table)
copy pg_temp.beliefdb_bulk_claim (n, ord, statement, subject, attribute, value, quote, start_offset, end_offset,
                                  kind, scope, valid_from, valid_to) from stdin (format binary);

-- bulk_copy_documents --
-- Stage a bulk batch's documents (binary COPY into this transaction's staging table)
copy pg_temp.beliefdb_bulk_document (n, source, content, label, path, rejected) from stdin (format binary);

-- bulk_copy_fragments --
-- Stage a bulk batch's fragment offsets (binary COPY into this transaction's staging table)
copy pg_temp.beliefdb_bulk_fragment (n, start_offset, end_offset) from stdin (format binary);

-- transaction_id --
-- This transaction's id, assigned now (text: an xid8), for transaction_status once the connection is gone
select pg_catalog.pg_current_xact_id()::text;

-- transaction_status --
-- Whether a transaction committed, aborted or is in progress (pg_xact_status): the outcome of one whose commit a
-- Ctrl-C cut off, its answer never read
select pg_catalog.pg_xact_status(%s::xid8);

-- bulk_ingest_batch --
-- Store the staged batch as ingest_version would, one report per document in order
select beliefdb.bulk_ingest_batch(%s, %s, %s);

-- bulk_stage --
-- Create this transaction's empty staging tables for a bulk batch
select beliefdb.bulk_stage();

-- ingest_preview --
-- What ingesting a version of a source would change, nothing written
select beliefdb.ingest_preview(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s);

-- ingest_version --
-- Ingest a version of a source with its fragments and claims
select beliefdb.ingest_version(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s);

-- append_turn --
-- Append a turn to a conversation in place (its version in force grows), else as ingest_version; with an
-- idempotency key (and whether the turn's time was beliefdb's clock), a retry of it appends nothing
select beliefdb.append_turn(%s, %s, %s, %s, %s, %s, %s);

-- source_in_force --
-- The content and number of a source's version in force (rule 2, beliefdb.in_force); nulls when it
-- has none (the source or every version retracted), no row when there is no such source
select v.content, v.version
  from beliefdb.source s
  left join beliefdb.source_version v
    on v.workspace_id = s.workspace_id and v.source_id = s.id and beliefdb.in_force(v.workspace_id, v.id)
 where s.name = %s;

-- source_exists --
-- Whether the bound workspace has a source of this name (retracted or not)
select exists (select from beliefdb.source s where s.name = %s);

-- add_claims_to_source --
-- Add claims against the version of a source in force
select beliefdb.add_claims_to_source(%s, %s, %s);

-- decay --
-- Recompute every confidence as of a moment (now when null)
select * from beliefdb.decay(%s, 'decay', %s);

-- recompute --
-- Recompute every confidence after a policy or half-life change
select * from beliefdb.decay(null, 'recompute', %s);

-- record_outcome --
-- Record what happened after a decision or action
select * from beliefdb.record_outcome(%s, %s, %s, %s);

-- forget --
-- Forget a source, a subject's beliefs and the turns of its speakers, or one belief (and, for a subject,
-- mask its name where others wrote it in the stored source texts, or not)
select * from beliefdb.forget(%s, %s, %s, %s, %s);

-- forget_mentions --
-- Whether forget looks for where people typed a forgotten subject's name (off: for the preview that
-- forget(expect=...) compares by its fingerprint alone, which does not count them; until set again)
select set_config('beliefdb.forget_mentions', %s, true);

-- subject_exists --
-- Whether a belief of the bound workspace has this subject
select exists (select from beliefdb.belief b where b.subject = %s);

-- speakers --
-- Every speaker of a turn in the bound workspace, stored, waiting to be (queued, proposed) or named by
-- a job or a proposal since (done, resolved): forget finds those whose name is a subject
select f.speaker from beliefdb.fragment f where f.speaker is not null
union
select t ->> 'speaker'
  from beliefdb.job j
 cross join lateral jsonb_array_elements(case when jsonb_typeof(j.payload -> 'turns') = 'array'
                                              then j.payload -> 'turns' else '[]' end) t
 where t ->> 'speaker' is not null
union
select f ->> 'speaker'
  from beliefdb.review_item r
 cross join lateral jsonb_array_elements(case when jsonb_typeof(r.proposal -> 'fragments') = 'array'
                                              then r.proposal -> 'fragments' else '[]' end) f
 where r.kind = 'version_proposed' and f ->> 'speaker' is not null;

-- repair_plan --
-- The repair plan for faulty memories, in the order of the actions
select p.node, p.node_kind, p.step_kind, p.run_id, p.seq, p.action, p.reason, p.saved_by
  from beliefdb.repair_plan(%s, %s, %s) p
  left join beliefdb.run r on r.workspace_id = beliefdb.current_workspace_id() and r.id = p.run_id
 order by array_position(%s::text[], p.action), r.created_at, r.id, p.seq, p.node;

-- repair_apply --
-- Carry out the store side of a repair plan
select * from beliefdb.repair_apply(%s, %s);

-- load_repair --
-- An applied repair to replay: what was faulty and its plan (its runs' owner or its maker only)
select faulty, plan from beliefdb.repair_to_replay(%s);

-- replayed_steps --
-- Steps already replayed for these old steps, with their runs
select s.replay_of, s.id, s.run_id, s.payload, r.parent_run_id
  from beliefdb.step s join beliefdb.run r on r.workspace_id = s.workspace_id and r.id = s.run_id
 where s.replay_of = any(%s);

-- next_step_seq --
-- The next step number of a run
select coalesce(max(seq) + 1, 0) from beliefdb.step where run_id = %s;

-- run_task --
-- The task and the agent of a run
select task, agent from beliefdb.run where id = %s;

-- beliefs_produced_by_step --
-- The beliefs a step produced
select b.id, b.subject, b.attribute
  from beliefdb.justification j
  join beliefdb.justification_antecedent a
    on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.belief b on b.workspace_id = j.workspace_id and b.id = j.consequent
 where a.antecedent = %s and a.edge_kind = 'produces';

-- repair_replayed --
-- Mark a repair's replay as done
select beliefdb.repair_replayed(%s);

-- impact --
-- What retracting these nodes would affect
select node, kind, effect, detail from beliefdb.impact(%s) order by effect, kind, node;

-- resolve_source --
-- A source by its name, or one version of it by number (as retract names them): its id
select beliefdb.resolve_source(%s, %s);

-- retract --
-- Retract (or undo the retraction of) a node, a source or a source version
select * from beliefdb.retract(%s, %s, %s, %s, %s);

-- retract_preview --
-- What a retraction would change, nothing written
select * from beliefdb.retract_preview(%s, %s, %s, %s);

-- recall --
-- Candidate beliefs for a question (vector, full text and subject name), of these subjects when given
select belief_id, score, similarity, vector_rank, text_rank, name_rank, low_confidence
  from beliefdb.recall(%(q)s, %(v)s, %(model)s, %(k)s, %(as_of)s, %(scope)s::jsonb,
                       %(min_conf)s::real, %(fixtures)s, %(min_sim)s, p_subjects => %(subjects)s::text[]);

-- word_matches --
-- Of these beliefs, those that share a word with the question (an English stem, or a word in another
-- script as written, as recall's full text) besides a person's name that is their subject's: "Maya's
-- puppy" matches every belief about Maya by name, none of them by word. A word of the subject is such
-- a name where the question writes it as one, capitalised after another word of its sentence (after
-- blanks and any opening quote or bracket: "Maya's" in "What is the name of Maya's puppy?"), in a
-- document's beliefs about her as in a conversation's, unless the workspace's text writes it in lower
-- case as often as capitalised: a department or a thing ("When can I reach Support?", a Title Case or
-- all-caps question, where a document says "Support hours are ..." and "Can support help"), not a
-- name that is also a word now and then ("Mark works at Acme." beside "Please mark the box") or one a
-- chat types in lower case ("tell maya i said hi"). Only the question's capitalised words of these
-- beliefs' subjects are looked up, each in at most 100 fragments that have it (fragment_search), its
-- occurrences counted by case; and where it names the speaker of a turn that
-- a belief of that subject quotes, this one or another (a correction's replacement quotes the
-- reviewer, a belief derived from hers quotes nothing: they are about Maya all the same), however the
-- question writes it, as the names of a conversation's speakers are no word match for its turns
-- (recall_fragments). Elsewhere it is a word like any other: "return", of a document's
-- return_policy, for "how long do I have to return something?"
-- once per question (materialized: a subquery of the join ran once per belief), the workspace's rows
-- of the word read from fragment_search alone (its workspace index as well cost as much again)
with n (names) as materialized (
    select coalesce(pg_catalog.string_agg(m.w, ' '), '')
      from (select distinct m[1] from pg_catalog.regexp_matches(%(q)s,
                    '(?<=[^.!?:;[:space:]][[:space:]]+["''“‘(\[]*)([[:upper:]][[:alnum:]]*)', 'g') m) m (w)
     where pg_catalog.tsvector_to_array(pg_catalog.to_tsvector('pg_catalog.english', m.w)
                                        || pg_catalog.to_tsvector('pg_catalog.simple', m.w))
           && array(select pg_catalog.unnest(pg_catalog.tsvector_to_array(
                               pg_catalog.to_tsvector('pg_catalog.english', pg_catalog.replace(s.subject, '_', ' '))
                               || pg_catalog.to_tsvector('pg_catalog.simple', pg_catalog.replace(s.subject, '_', ' '))))
                      from beliefdb.belief s
                     where s.workspace_id = beliefdb.current_workspace_id() and s.id = any(%(ids)s))
       and (select not (count(*) filter (where o.lower) > 0
                        and count(*) filter (where o.lower) >= count(*) filter (where not o.lower))
              from (select f.text from beliefdb.fragment f
                     where f.workspace_id is not distinct from beliefdb.current_workspace_id()
                       and f.search @@ pg_catalog.plainto_tsquery('pg_catalog.simple', m.w)
                     limit 100) f
             cross join lateral (select x[1] ~ '^[[:lower:]]'
                                   from pg_catalog.regexp_matches(f.text, '\m(' || m.w || ')\M', 'gi') x) o (lower)))
select b.id
  from beliefdb.belief b, n
 where b.workspace_id = beliefdb.current_workspace_id() and b.id = any(%(ids)s)
   and exists (
        select from (select l from unnest(pg_catalog.tsvector_to_array(pg_catalog.to_tsvector('pg_catalog.english', %(q)s))) l
                     union
                     select l from unnest(pg_catalog.tsvector_to_array(pg_catalog.to_tsvector('pg_catalog.simple', %(q)s))) l
                      where l ~ '[^\x01-\x7f]') q (l)
         where q.l = any(pg_catalog.tsvector_to_array(
                   pg_catalog.to_tsvector('pg_catalog.english', b.statement || ' ' || pg_catalog.replace(b.attribute, '_', ' ')
                                          || ' ' || b.value)
                   || pg_catalog.to_tsvector('pg_catalog.simple', b.statement || ' ' || b.attribute || ' ' || b.value)))
           and not (q.l = any(pg_catalog.tsvector_to_array(
                        pg_catalog.to_tsvector('pg_catalog.english', pg_catalog.replace(b.subject, '_', ' '))
                        || pg_catalog.to_tsvector('pg_catalog.simple', pg_catalog.replace(b.subject, '_', ' '))))
                    and (q.l = any(pg_catalog.tsvector_to_array(
                             pg_catalog.to_tsvector('pg_catalog.english', n.names)
                             || pg_catalog.to_tsvector('pg_catalog.simple', n.names)))
                         or exists (
                             select from beliefdb.belief s
                               join beliefdb.evidence e on e.workspace_id = s.workspace_id and e.belief_id = s.id
                               join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                              where s.workspace_id = b.workspace_id and s.subject = b.subject and f.speaker is not null
                                and q.l = any(pg_catalog.tsvector_to_array(
                                        pg_catalog.to_tsvector('pg_catalog.english', f.speaker)
                                        || pg_catalog.to_tsvector('pg_catalog.simple', f.speaker)))))));

-- recall_fragments --
-- Unextracted text matching a question (ask's fallback): each fragment with its source, version and turn.
-- Each row is read by its key from the few the function returns (lateral, offset 0): joined, the planner
-- took its guess of 1,000 rows and 0.5 % of the workspace and hashed every fragment, version and source
-- of the workspace at every ask (15,053 fragments, 24 ms at 100,000 nodes)
select f.id as fragment_id, f.text, s.name as source, v.version, v.label as version_label, f.start_offset,
       f.end_offset, v.recorded_at, f.speaker, f.spoken_at, s.authority::text as authority,
       s.provenance::text as provenance, r.score
  from beliefdb.recall_fragments(%(q)s, %(k)s, %(as_of)s, %(fixtures)s) r
 cross join lateral (select f.id, f.text, f.start_offset, f.end_offset, f.speaker, f.spoken_at, f.source_version_id
                       from beliefdb.fragment f
                      where f.workspace_id = beliefdb.current_workspace_id() and f.id = r.fragment_id
                     offset 0) f
 cross join lateral (select v.version, v.label, v.recorded_at, v.source_id
                       from beliefdb.source_version v
                      where v.workspace_id = beliefdb.current_workspace_id() and v.id = f.source_version_id
                     offset 0) v
 cross join lateral (select s.name, s.authority, s.provenance
                       from beliefdb.source s
                      where s.workspace_id = beliefdb.current_workspace_id() and s.id = v.source_id
                     offset 0) s
 order by r.text_rank;

-- supporting_evidence --
-- The supporting evidence of these beliefs recorded by as_of (now when null), each version in force or
-- not as it stood then (beliefdb.in_force_at); a quote whose fragment was retracted then supports nothing
-- (rule 5 of docs/rules.md) and is left out: it is in why, with its retraction
select belief_id, role, quote, fragment_id, start_offset, end_offset, source,
       origin_type::text as origin_type, authority::text as authority, provenance::text as provenance,
       version, version_label, version_sha256,
       case when %(as_of)s::timestamptz is null then in_force
            else beliefdb.in_force_at(workspace_id, source_version_id, %(as_of)s) end as in_force,
       created_at, speaker, spoken_at
  from beliefdb.belief_evidence e
 where belief_id = any(%(ids)s) and role = 'supports'
   and created_at <= coalesce(%(as_of)s, beliefdb.clock())
   and not exists (select from beliefdb.retraction_period r
                    where r.workspace_id = e.workspace_id and r.node_id = e.fragment_id
                      and r.retracted_at <= coalesce(%(as_of)s, beliefdb.clock())
                      and (r.restored_at is null or r.restored_at > coalesce(%(as_of)s, beliefdb.clock())))
 order by in_force desc, version desc, start_offset;

-- recall_history --
-- What these beliefs replaced, and what that replaced, up to depth steps back, by supersession
-- recorded by as_of (now when null); only values that were true once (beliefdb.shown_as_replaced). Each with the belief it is shown under, the belief that replaced it, that one's value and
-- the moment it did (beliefdb.replaced_on: its valid time, a turn's date; else when it was recorded)
with recursive back (shown, successor, predecessor, steps) as (
    select r.from_belief, r.from_belief, r.to_belief, 1
      from beliefdb.relation r
     where r.workspace_id = beliefdb.current_workspace_id() and r.kind = 'supersedes'
       and r.from_belief = any(%(ids)s) and r.created_at <= coalesce(%(as_of)s::timestamptz, beliefdb.clock())
       and (r.ended_at is null or r.ended_at > coalesce(%(as_of)s::timestamptz, beliefdb.clock()))
    union all
    select b.shown, r.from_belief, r.to_belief, b.steps + 1
      from back b
      join beliefdb.relation r
        on r.workspace_id = beliefdb.current_workspace_id() and r.kind = 'supersedes' and r.from_belief = b.predecessor
     where b.steps < %(depth)s and r.created_at <= coalesce(%(as_of)s::timestamptz, beliefdb.clock())
       and (r.ended_at is null or r.ended_at > coalesce(%(as_of)s::timestamptz, beliefdb.clock()))
)
select distinct on (b.shown, b.predecessor) b.shown, b.predecessor, b.successor, s.value as successor_value,
       beliefdb.replaced_on(s.valid_time, o.valid_time, r.created_at) as replaced_on, b.steps
  from back b
  join beliefdb.belief s on s.workspace_id = beliefdb.current_workspace_id() and s.id = b.successor
  join beliefdb.belief o on o.workspace_id = beliefdb.current_workspace_id() and o.id = b.predecessor
  join beliefdb.relation r
    on r.workspace_id = beliefdb.current_workspace_id() and r.kind = 'supersedes'
   and r.from_belief = b.successor and r.to_belief = b.predecessor
   and (r.ended_at is null or r.ended_at > coalesce(%(as_of)s::timestamptz, beliefdb.clock()))
 where o.id <> b.shown and beliefdb.shown_as_replaced(o, %(as_of)s::timestamptz)
 order by b.shown, b.predecessor, b.steps;

-- low_confidence_threshold --
-- Under this confidence a belief is demoted and labelled in retrieval (the policy's, as beliefdb.recall reads it)
select coalesce((select p.weight from beliefdb.confidence_policy p
                  where p.factor = 'retrieval' and p.key = 'low_confidence'), 0.3);

-- recall_warnings --
-- Conflicts, replacements and provenance of these beliefs as of a moment
select x.id, beliefdb.recall_warnings(x.id, %s) from unnest(%s::uuid[]) as x (id);

-- list_review_items --
-- The review queue, oldest first: at most limit (all when null) after the item after (id or prefix), of the kinds (all when null)
select * from beliefdb.review_items(%(limit)s, %(after)s, %(kinds)s);

-- review_count --
-- How many review items are open
select beliefdb.review_count();

-- review_resolve --
-- Resolve a review item
select * from beliefdb.review_resolve(%s, %s, %s, %s);

-- record_trace --
-- Record a run's buffered steps, memories and edges
select beliefdb.record_trace(%s, %s, %s, %s);

-- list_runs --
-- Runs with their number of steps, oldest first: limit (null: all) from offset
select r.id, r.agent, r.task, r.parent_run_id, r.created_at,
       (select count(*) from beliefdb.step s where s.workspace_id = r.workspace_id and s.run_id = r.id)::int
           as steps
  from beliefdb.run r
 order by r.created_at, r.id
 limit %(limit)s offset %(offset)s;

-- list_runs_newest --
-- Runs with their number of steps, newest first: limit (null: all) from offset
select r.id, r.agent, r.task, r.parent_run_id, r.created_at,
       (select count(*) from beliefdb.step s where s.workspace_id = r.workspace_id and s.run_id = r.id)::int
           as steps
  from beliefdb.run r
 order by r.created_at desc, r.id desc
 limit %(limit)s offset %(offset)s;

-- count_runs --
-- How many runs there are
select count(*) from beliefdb.run;

-- run_info --
-- One run with its number of steps
select r.id, r.agent, r.task, r.parent_run_id, r.created_at,
       (select count(*) from beliefdb.step s where s.workspace_id = r.workspace_id and s.run_id = r.id)::int
           as steps
  from beliefdb.run r
 where r.id = %s;

-- run_by_prefix --
-- Runs whose id starts with a prefix (two at most)
select id from beliefdb.run where id::text like %s || '%%' limit 2;

-- run_next_seq --
-- The seq the next step of a run takes (after every recorded one)
select coalesce(max(seq) + 1, 0) from beliefdb.step where run_id = %s;

-- steps --
-- Steps of a run (or these steps), in execution order
select s.id, s.run_id, s.seq, s.kind::text as kind, s.payload, s.status, s.replay_of, n.holds
  from beliefdb.step s
  join beliefdb.node n on n.workspace_id = s.workspace_id and n.id = s.id
  join beliefdb.run r on r.workspace_id = s.workspace_id and r.id = s.run_id
 where (%(run)s::uuid is null or s.run_id = %(run)s) and (%(ids)s::uuid[] is null or s.id = any(%(ids)s))
 order by r.created_at, r.id, s.seq;

-- step_inputs --
-- The recorded inputs of these steps
select j.consequent as step_id, a.edge_kind::text as edge, a.antecedent as node, n.kind::text as node_kind,
       a.edge_kind = 'supports' as alternative
  from beliefdb.justification j
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
 where j.consequent = any(%s)
 order by j.consequent, a.edge_kind = 'supports', a.edge_kind, a.antecedent;

-- workspace_exists --
-- Whether a workspace of this name exists
select 1 from beliefdb.workspace where name = %s;

-- create_workspace --
-- Create a workspace
insert into beliefdb.workspace (name) values (%s) returning id, name, created_at;

-- list_workspaces --
-- The workspaces whose name is like a pattern (backslash escapes), by name, at most a limit (null: all)
select id, name, created_at from beliefdb.workspace where name like %(pattern)s order by name limit %(limit)s::bigint;

-- delete_workspace_nodes --
-- Delete a workspace's nodes
delete from beliefdb.node where workspace_id = %s;

-- delete_workspace_sources --
-- Delete a workspace's sources
delete from beliefdb.source where workspace_id = %s;

-- delete_workspace_repairs --
-- Delete a workspace's repairs
delete from beliefdb.repair where workspace_id = %s;

-- delete_workspace_runs --
-- Delete a workspace's runs
delete from beliefdb.run where workspace_id = %s;

-- delete_workspace_embedding_model --
-- Delete a workspace's embedding model
delete from beliefdb.embedding_model where workspace_id = %s;

-- delete_workspace_tokens --
-- Delete a workspace's bearer tokens (while its audit chain still takes the event)
delete from beliefdb.api_token where workspace_id = %s;

-- delete_workspace --
-- Delete a workspace's row (with its audit chain)
delete from beliefdb.workspace where id = %s;

-- analyze_deleted_tables --
-- Gather statistics again on every table the deletion emptied of the workspace's rows, before it commits (rule 14: pg_statistic keeps nothing of it)
select beliefdb._analyze_deleted_tables();

-- workspace_by_name --
-- A workspace's id by its name
select id from beliefdb.workspace where name = %s;

-- lock_workspace_for_delete --
-- Take the workspace's write lock (its audit head), as every writer does first
select from beliefdb.audit_head where workspace_id = %s for update;

-- workspace_agent_logins --
-- The agents' logins bound to a workspace, by name (the binding outlives the workspace)
select a.role_name from beliefdb.agent_login a where a.workspace_id = %s order by a.role_name;

-- workspace_contents --
-- How many sources, beliefs, decisions and runs a workspace holds, and whether it has nodes
select (select count(*) from beliefdb.source where workspace_id = %(ws)s)::int,
       (select count(*) from beliefdb.belief where workspace_id = %(ws)s)::int,
       (select count(*) from beliefdb.decision where workspace_id = %(ws)s)::int,
       (select count(*) from beliefdb.run where workspace_id = %(ws)s)::int,
       exists (select from beliefdb.node where workspace_id = %(ws)s);

-- token_insert --
-- A bearer token of the servers (as the schema owner): only the SHA-256 of its secret is stored
insert into beliefdb.api_token (workspace_id, token_sha256, principal, read_only)
values (%(workspace_id)s, %(sha256)s, %(principal)s, %(read_only)s)
returning id, created_at;

-- token_list --
-- The bearer tokens (of one workspace, or all), oldest first, without their hashes
select t.id, w.name as workspace, t.principal, t.read_only, t.created_at, t.revoked_at
  from beliefdb.api_token t
  join beliefdb.workspace w on w.id = t.workspace_id
 where %(workspace)s::text is null or w.name = %(workspace)s::text
 order by t.created_at, t.id;

-- token_by_prefix --
-- The ids of the bearer tokens whose id starts with a prefix
select id from beliefdb.api_token where id::text like %s || '%%';

-- token_revoke --
-- Revoke a bearer token (once: a revoked token keeps the moment it was revoked, an earlier transaction's)
update beliefdb.api_token t set revoked_at = coalesce(t.revoked_at, pg_catalog.now())
  from beliefdb.workspace w
 where w.id = t.workspace_id and t.id = %s
returning t.id, w.name as workspace, t.principal, t.read_only, t.created_at, t.revoked_at,
          t.revoked_at < pg_catalog.now() as already_revoked;

-- authenticate --
-- Who a bearer token speaks for (by the SHA-256 of its secret), unless it was revoked
select token_id, workspace_id, workspace, principal, read_only from beliefdb.authenticate(%s);

-- role_oid --
-- The oid of the database role of this name, if one exists (roles belong to the cluster, not to one database)
select oid from pg_catalog.pg_roles where rolname = %s;

-- owns_schema --
-- Whether the session's user is the owner of schema beliefdb (or a member of its owner)
select pg_catalog.pg_has_role(n.nspowner, 'member') from pg_catalog.pg_namespace n where n.nspname = 'beliefdb';

-- agent_login_insert --
-- Bind a new agent's login role to its workspace (as the schema owner)
insert into beliefdb.agent_login (workspace_id, role_name) values (%(workspace_id)s, %(name)s)
returning created_at;

-- agent_login_list --
-- The agents' login roles (of one workspace, or all) by name: the workspace (null once deleted), whether the role logs in, whether it only reads (an auditor's: beliefdb_reader, not beliefdb_app), and the other database of this server its role was made for, if it was (its comment: in a copy of that one, restored from its dump or made from it as a template; a database renamed or dropped since is no other)
select a.role_name as name, w.name as workspace, a.workspace_id, a.created_at,
       coalesce(r.rolcanlogin, false) as can_login, d.datname as role_of_database,
       coalesce(pg_catalog.pg_has_role(r.oid, 'beliefdb_reader', 'member')
                and not pg_catalog.pg_has_role(r.oid, 'beliefdb_app', 'member'), false) as read_only
  from beliefdb.agent_login a
  left join beliefdb.workspace w on w.id = a.workspace_id
  left join pg_catalog.pg_roles r on r.rolname = a.role_name
  left join pg_catalog.pg_database d
    on d.datname = substring(pg_catalog.shobj_description(r.oid, 'pg_authid') from '^beliefdb agent login \(database (.*)\)$')
   and d.datname <> pg_catalog.current_database()
 where (%(workspace)s::text is null or w.name = %(workspace)s::text)
   and (%(name)s::text is null or a.role_name = %(name)s::text)
 order by a.role_name, a.workspace_id;

-- agent_login_delete --
-- Forget an agent's binding (its role is dropped in the same transaction)
delete from beliefdb.agent_login where role_name = %s;

-- may_signal_role --
-- Whether this session has the privileges of the role of this oid (it may then end that role's sessions)
select pg_catalog.pg_has_role(%s::oid, 'usage');

-- role_rights --
-- Whether the session's user has createrole, and holds the role of this oid with the admin option (both alter and drop it)
select r.rolcreaterole or r.rolsuper, pg_catalog.pg_has_role(%s::oid, 'member with admin option')
  from pg_catalog.pg_roles r where r.rolname = current_user;

-- end_role_sessions --
-- End the open sessions of a login role (by oid: it may be dropped already) that this session may signal; how many
select count(*) filter (where pg_catalog.pg_terminate_backend(a.pid))::int
  from pg_catalog.pg_stat_activity a
 where a.usesysid = %s and a.pid <> pg_catalog.pg_backend_pid()
   and (pg_catalog.pg_has_role(a.usesysid, 'usage') or pg_catalog.pg_has_role('pg_signal_backend', 'usage'));

-- bind_workspace_for_transaction --
-- Bind this transaction (not the session) to a workspace: the schema owner's, to append to its audit chain
select pg_catalog.set_config('beliefdb.workspace_id', %s, true);

-- audit_append --
-- Append a summary event to the bound workspace's audit chain
select beliefdb._audit(%s, %s);

-- graph_resolve --
-- What a picture's reference names (rule 7's targets): the id, and the node kind or source it is, with the source of a version or fragment
-- (each looked up by its key: joined, the planner, which cannot see a workspace's size, hashed all of its
-- fragments and source versions for one reference, 0.5 s at 150,000 fragments)
select r.n, t.id,
       (select n.kind::text from beliefdb.node n
         where n.workspace_id = beliefdb.current_workspace_id() and n.id = t.id) as kind,
       coalesce((select s.id from beliefdb.source s where s.workspace_id = beliefdb.current_workspace_id() and s.id = t.id),
                (select v.source_id from beliefdb.source_version v
                  where v.workspace_id = beliefdb.current_workspace_id() and v.id = t.id),
                (select (select fv.source_id from beliefdb.source_version fv
                          where fv.workspace_id = f.workspace_id and fv.id = f.source_version_id)
                   from beliefdb.fragment f where f.workspace_id = beliefdb.current_workspace_id() and f.id = t.id))
           as source_id
  from unnest(%(refs)s::text[]) with ordinality as r (ref, n)
 cross join lateral (select case when %(kinds)s::beliefdb.node_kind[] is null then beliefdb.resolve_target(r.ref)
                                 else beliefdb.resolve_node(r.ref, %(kinds)s::beliefdb.node_kind[]) end as id
                     offset 0) t
 order by r.n;

-- graph_nodes --
-- These nodes as a picture draws them, oldest first: kind, label (statement, title, description, reviewer and reason, step), stored status, whether it holds, detail, latest outcome (with its note), a decision's reasons forgotten, a belief's world (rule 15)
select b.id, 'belief' as kind, b.statement as label, b.status::text as status, n.holds,
       b.subject || ' / ' || b.attribute || ' = ' || b.value || ', confidence '
           || pg_catalog.to_char(b.confidence, 'FM0.00') as detail,
       null::text as outcome, null::uuid as parent, b.recorded_at as at, null::integer as seq,
       0 as forgotten, b.provenance::text as world
  from beliefdb.belief b
  join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id
 where b.id = any(%(ids)s::uuid[])
union all
select d.id, 'decision', d.title, d.status, n.holds, '', (select o.outcome || coalesce(' (' || o.note || ')', '') from beliefdb.latest_outcome(d.workspace_id, d.id) o),
       null, d.created_at, null, d.forgotten_reasons, null
  from beliefdb.decision d
  join beliefdb.node n on n.workspace_id = d.workspace_id and n.id = d.id
 where d.id = any(%(ids)s::uuid[])
union all
select a.id, 'action', a.description, a.status, n.holds, '', (select o.outcome || coalesce(' (' || o.note || ')', '') from beliefdb.latest_outcome(a.workspace_id, a.id) o),
       a.decision_id, a.created_at, null, 0, null
  from beliefdb.action a
  join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.id
 where a.id = any(%(ids)s::uuid[])
union all
select c.id, 'correction', 'by ' || c.reviewer || coalesce(': ' || c.reason, ''),
       case when n.holds then 'applied' else 'retracted' end, n.holds, c.new_statement, null, c.belief_id, c.created_at,
       null, 0, null
  from beliefdb.correction c
  join beliefdb.node n on n.workspace_id = c.workspace_id and n.id = c.id
 where c.id = any(%(ids)s::uuid[])
union all
select s.id, 'step', s.seq || '. ' || s.kind::text, s.status, n.holds, pg_catalog.left(s.payload::text, 200), null,
       s.run_id, s.created_at, s.seq, 0, null
  from beliefdb.step s
  join beliefdb.node n on n.workspace_id = s.workspace_id and n.id = s.id
 where s.id = any(%(ids)s::uuid[])
 order by at, seq, id;

-- graph_unfounded --
-- What the review item opened with a decision recorded without any reason says (rule 4: "No source-backed answer yet", and the citations a run's decision had refused, rule 19), whatever became of the item since; nothing for a decision with reasons
select r.reason
  from beliefdb.decision d
  join beliefdb.review_item r on r.workspace_id = d.workspace_id and r.node = d.id and r.kind = 'decision_flagged'
                             and r.created_at = d.created_at
 where d.workspace_id = beliefdb.current_workspace_id() and d.id = %(id)s
   and not exists (select from beliefdb.justification j where j.workspace_id = d.workspace_id and j.consequent = d.id)
 order by r.id
 limit 1;

-- graph_worlds --
-- The world (rule 15) of each of these beliefs, fragments, sources and source versions (a fragment's and a version's: its source's); other ids are left out
select b.id, b.provenance::text as world
  from beliefdb.belief b
 where b.workspace_id = beliefdb.current_workspace_id() and b.id = any(%(ids)s::uuid[])
union all
select f.id, s.provenance::text
  from beliefdb.fragment f
  join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
  join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
 where f.workspace_id = beliefdb.current_workspace_id() and f.id = any(%(ids)s::uuid[])
union all
select v.id, s.provenance::text
  from beliefdb.source_version v
  join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
 where v.workspace_id = beliefdb.current_workspace_id() and v.id = any(%(ids)s::uuid[])
union all
select s.id, s.provenance::text
  from beliefdb.source s
 where s.workspace_id = beliefdb.current_workspace_id() and s.id = any(%(ids)s::uuid[]);

-- node_labels --
-- What names these beliefs, decisions and actions to a person: statement, title, description (any other id left out)
select b.id, 'belief' as kind, b.statement as label
  from beliefdb.belief b
 where b.workspace_id = beliefdb.current_workspace_id() and b.id = any(%(ids)s::uuid[])
union all
select d.id, 'decision', d.title
  from beliefdb.decision d
 where d.workspace_id = beliefdb.current_workspace_id() and d.id = any(%(ids)s::uuid[])
union all
select a.id, 'action', a.description
  from beliefdb.action a
 where a.workspace_id = beliefdb.current_workspace_id() and a.id = any(%(ids)s::uuid[]);

-- graph_sources --
-- These sources as a picture draws them: name, origin, authority, whether retracted, its latest version and label (as of a moment: retracted then, the latest version recorded by then; now when as_of is null), its world (rule 15)
select s.id, s.name, s.origin_type::text as origin_type, s.authority::text as authority, s.provenance::text as world,
       case when %(as_of)s::timestamptz is null then s.retracted_at is not null
            else exists (select from beliefdb.retraction_period r
                          where r.workspace_id = s.workspace_id and r.source_id = s.id and r.retracted_at <= %(as_of)s
                            and (r.restored_at is null or r.restored_at > %(as_of)s)) end as retracted,
       v.version, v.label
  from beliefdb.source s
  left join lateral (select v.version, v.label from beliefdb.source_version v
                      where v.workspace_id = s.workspace_id and v.source_id = s.id
                        and (%(as_of)s::timestamptz is null or v.recorded_at <= %(as_of)s)
                      order by v.version desc limit 1) v on true
 where s.id = any(%(ids)s::uuid[]);

-- graph_evidence --
-- The supporting evidence of these beliefs recorded by as_of (all when null), by source: the quote, whether its fragment holds (as of a moment: whether its version was in force then, beliefdb.in_force_at), the correction it is
select e.belief_id, v.source_id, e.quote,
       case when %(as_of)s::timestamptz is null then n.holds
            else beliefdb.in_force_at(v.workspace_id, v.id, %(as_of)s) end as live, c.id as correction, e.fragment_id
  from beliefdb.evidence e
  join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
  join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
  join beliefdb.node n on n.workspace_id = f.workspace_id and n.id = f.id
  left join beliefdb.correction c on c.workspace_id = e.workspace_id and c.fragment_id = e.fragment_id
 where e.belief_id = any(%(ids)s::uuid[]) and e.role = 'supports'
   and (%(as_of)s::timestamptz is null or e.created_at <= %(as_of)s)
 order by e.belief_id, live desc, v.version desc, f.start_offset;

-- graph_fragment_versions --
-- The source version of each of these fragments and source versions (a version's own): its id, source, number and label
select f.id, v.id as version_id, v.source_id, v.version, v.label
  from beliefdb.fragment f
  join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
 where f.workspace_id = beliefdb.current_workspace_id() and f.id = any(%(ids)s::uuid[])
union all
select v.id, v.id, v.source_id, v.version, v.label
  from beliefdb.source_version v
 where v.workspace_id = beliefdb.current_workspace_id() and v.id = any(%(ids)s::uuid[]);

-- graph_out --
-- The reasons these nodes are part of (recorded by as_of, all when null): antecedent, consequent and its kind, edge kind, whether the reason is live (every antecedent current; as of a moment: then)
-- (each node's edges by the index on antecedents, one node after the other: as `antecedent = any(...)`
-- the planner, which cannot see a workspace's size, scanned the primary key instead, 0.6-0.8 s at 1M nodes)
select a.antecedent, a.consequent, n.kind::text as consequent_kind, a.edge_kind::text as edge_kind,
       case when %(as_of)s::timestamptz is null then j.unmet = 0
            else beliefdb.reason_live_at(j.workspace_id, j.id, %(as_of)s) end as live, j.id as justification
  from unnest(%(ids)s::uuid[]) x (id)
 cross join lateral (select a.workspace_id, a.antecedent, a.consequent, a.edge_kind, a.justification_id
                       from beliefdb.justification_antecedent a
                      where a.workspace_id = beliefdb.current_workspace_id() and a.antecedent = x.id
                        and a.edge_kind <> 'evidence'
                     offset 0) a
  join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
  join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.consequent
 where (%(as_of)s::timestamptz is null or j.created_at <= %(as_of)s)
 order by j.created_at, j.id, a.antecedent;

-- graph_in --
-- The reasons of these nodes (recorded by as_of, all when null): antecedent and its kind, consequent, edge kind, whether the reason is live (as of a moment: then); live ones first
select a.antecedent, n.kind::text as antecedent_kind, j.consequent, a.edge_kind::text as edge_kind,
       case when %(as_of)s::timestamptz is null then j.unmet = 0
            else beliefdb.reason_live_at(j.workspace_id, j.id, %(as_of)s) end as live, j.id as justification
  from beliefdb.justification j
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
 where j.consequent = any(%(ids)s::uuid[]) and a.edge_kind <> 'evidence'
   and (%(as_of)s::timestamptz is null or j.created_at <= %(as_of)s)
 order by live desc, j.created_at, j.id, a.antecedent;

-- graph_relations --
-- Supersessions and conflicts involving these beliefs, recorded by as_of (all when null), with both statements, and whether each is in effect now (not ended, and its newer side holds: rule 3)
select h.new_belief, h.new_statement, h.old_belief, h.old_statement, h.kind::text as kind, h.reason,
       h.ended is null and coalesce(n.holds, false) as in_effect
  from beliefdb.belief_history h
  left join beliefdb.node n on n.workspace_id = h.workspace_id and n.id = h.new_belief
 where (h.new_belief = any(%(ids)s::uuid[]) or h.old_belief = any(%(ids)s::uuid[]))
   and (%(as_of)s::timestamptz is null or h.at <= %(as_of)s)
 order by h.at;

-- graph_corrections --
-- The corrections of these beliefs or that replaced them, recorded by as_of (all when null), and whether each is in effect now (its replacement supersedes the belief: not ended, and the replacement holds, rule 3; read here, not from the page's relations, which may leave the replacement out)
select c.id, c.belief_id, c.replacement_belief_id as replacement, c.reviewer, c.new_statement,
       exists (select from beliefdb.relation r
                 join beliefdb.node n on n.workspace_id = r.workspace_id and n.id = r.from_belief
                where r.workspace_id = c.workspace_id and r.from_belief = c.replacement_belief_id
                  and r.to_belief = c.belief_id and r.kind = 'supersedes' and r.ended_at is null and n.holds)
           as in_effect
  from beliefdb.correction c
 where (c.belief_id = any(%(ids)s::uuid[]) or c.replacement_belief_id = any(%(ids)s::uuid[]))
   and (%(as_of)s::timestamptz is null or c.created_at <= %(as_of)s)
 order by c.created_at;

-- graph_as_of --
-- Which of these beliefs were believed at as_of (beliefdb.believed_at), with the status they had then (beliefdb.status_at; read for these alone, not for every belief)
select b.id, beliefdb.status_at(b, %(as_of)s)::text as status
  from beliefdb.belief b
 where b.id = any(%(ids)s::uuid[]) and beliefdb.believed_at(b, %(as_of)s);

-- graph_recorded_as_of --
-- The status these beliefs had at as_of, believed then or not (beliefdb.belief_status_at: retracted, quarantined, superseded, unsupported or expired then too), of those recorded by then
select b.id, beliefdb.belief_status_at(b, %(as_of)s)::text as status
  from beliefdb.belief b
 where b.id = any(%(ids)s::uuid[]) and b.recorded_at <= %(as_of)s;

-- graph_status_as_of --
-- The status these decisions and actions had at as_of, of those recorded by then, from their review items (beliefdb.decision_status_at, beliefdb.action_status_at)
select d.id, beliefdb.decision_status_at(d, %(as_of)s) as status
  from beliefdb.decision d
 where d.id = any(%(ids)s::uuid[]) and d.created_at <= %(as_of)s
union all
select a.id, beliefdb.action_status_at(a, %(as_of)s)
  from beliefdb.action a
 where a.id = any(%(ids)s::uuid[]) and a.created_at <= %(as_of)s;

-- graph_verdicts --
-- The verdict that set each of these decisions' and actions' status, now (or at as_of when given: the status then, beliefdb.decision_status_at and beliefdb.action_status_at), with who gave it, when and their note: a decision's last flag resolved (by then) when it approved or rejected it and the decision is so; an action's last hold resolved when it released it (scheduled) or rejected it (cancelled), else, for a cancelled one, the rejection of its decision resolved since (rejecting a decision cancels what a person had released); none for a status no verdict set
with n as (
    select d.workspace_id, d.id, 'decision_flagged' as kind, null::uuid as decision_id,
           case when %(as_of)s::timestamptz is null then d.status else beliefdb.decision_status_at(d, %(as_of)s) end as status
      from beliefdb.decision d
     where d.workspace_id = beliefdb.current_workspace_id() and d.id = any(%(ids)s::uuid[])
       and (%(as_of)s::timestamptz is null or d.created_at <= %(as_of)s)
    union all
    select a.workspace_id, a.id, 'action_held', a.decision_id,
           case when %(as_of)s::timestamptz is null then a.status else beliefdb.action_status_at(a, %(as_of)s) end
      from beliefdb.action a
     where a.workspace_id = beliefdb.current_workspace_id() and a.id = any(%(ids)s::uuid[])
       and (%(as_of)s::timestamptz is null or a.created_at <= %(as_of)s)
), own as (
    select n.*, r.id as item, r.status as verdict, r.resolved_seq
      from n
      left join lateral (select r.id, r.status, r.resolved_seq from beliefdb.review_item r
                          where r.workspace_id = n.workspace_id and r.kind = n.kind and r.node = n.id
                            and r.status in ('approved', 'rejected', 'closed')
                            and (%(as_of)s::timestamptz is null or r.resolved_at <= %(as_of)s)
                          order by r.resolved_seq desc limit 1) r on true
)
select o.id, r.id as item, r.kind, r.status, r.resolved_by, r.resolved_at, r.note
  from own o
  cross join lateral (
      select r.* from beliefdb.review_item r
       where r.workspace_id = o.workspace_id and r.id = o.item
         and o.status = case when o.kind = 'decision_flagged' then o.verdict
                             when o.verdict = 'approved' then 'scheduled' when o.verdict = 'rejected' then 'cancelled' end
      union all
      (select r.* from beliefdb.review_item r
        where o.kind = 'action_held' and o.status = 'cancelled' and o.verdict is distinct from 'rejected'
          and r.workspace_id = o.workspace_id and r.kind = 'decision_flagged' and r.node = o.decision_id
          and r.status = 'rejected' and r.resolved_seq > coalesce(o.resolved_seq, 0)
          and (%(as_of)s::timestamptz is null or r.resolved_at <= %(as_of)s)
        order by r.resolved_seq desc limit 1)
  ) r;

-- graph_review_item --
-- A review item a picture's reference names when it names no node (beliefdb.resolve_review_item: an ambiguous prefix is refused naming them), with the subject it is about (its node, or the source of a proposed version or retraction) and the subject's node kind; no row when it names none
select r.id, r.kind, r.status, r.node, r.source_id, n.kind::text as node_kind, r.reason, r.created_at,
       r.resolved_by, r.resolved_at, r.note
  from beliefdb.resolve_review_item(%(ref)s) i (id)
  join beliefdb.review_item r on r.workspace_id = beliefdb.current_workspace_id() and r.id = i.id
  left join beliefdb.node n on n.workspace_id = r.workspace_id and n.id = r.node;

-- graph_run --
-- A run as a picture draws it: its task, agent, and the run it replays
select r.id, r.task, r.agent, r.parent_run_id from beliefdb.run r where r.id = %(id)s;

-- workspace_beliefs --
-- The production beliefs of the product view, newest first, from offset (at most limit + 1: one more says it was cut): of subject, status, recorded between since and until; each row with how many pass the filters (n, counted up to count_limit), one row with a null id when none is on the page
-- (not materialized: the page reads belief_recent in order until its limit, the count until its bound)
with passing as not materialized (
    select b.id, b.recorded_at
      from beliefdb.belief b
     where b.provenance = 'production'
       and (%(subject)s::text is null or b.subject = %(subject)s)
       and (%(status)s::text is null or b.status = %(status)s::beliefdb.belief_status)
       and (%(since)s::timestamptz is null or b.recorded_at >= %(since)s)
       and (%(until)s::timestamptz is null or b.recorded_at < %(until)s)
), page as (
    select p.id, p.recorded_at from passing p order by p.recorded_at desc, p.id offset %(offset)s limit %(limit)s
), counted as (
    select count(*) as n from (select from passing limit %(count_limit)s) x
)
select p.id, c.n
  from counted c
  left join page p on true
 order by p.recorded_at desc, p.id;

-- workspace_beliefs_as_of --
-- The product view's beliefs as believed at as_of (beliefdb.believed_at; status: the one they had then, beliefdb.status_at), filtered like workspace_beliefs, newest first from offset, read until limit are found; each row with how many pass the filters (n, counted up to count_limit), one row with a null id when none is on the page
-- (passing is read once, as far as the page or the count needs it: believed_at runs once per belief read)
with passing as (
    select x.id, x.recorded_at
      from (select b.id, b.recorded_at, b as belief
              from beliefdb.belief b
             where b.provenance = 'production' and b.recorded_at <= %(as_of)s
               and (%(subject)s::text is null or b.subject = %(subject)s)
               and (%(since)s::timestamptz is null or b.recorded_at >= %(since)s)
               and (%(until)s::timestamptz is null or b.recorded_at < %(until)s)
             order by b.recorded_at desc, b.id
            offset 0) x  -- (sorted first, so that believed_at runs only on the rows read until the limit)
     where beliefdb.believed_at(x.belief, %(as_of)s)
       and (%(status)s::text is null or %(status)s = beliefdb.status_at(x.belief, %(as_of)s)::text)
), page as (
    select p.id, p.recorded_at from passing p offset %(offset)s limit %(limit)s
), counted as (
    select count(*) as n from (select from passing limit %(count_limit)s) x
)
select p.id, c.n
  from counted c
  left join page p on true
 order by p.recorded_at desc, p.id;

-- source_excerpts --
-- The text of each fragment's source version around it (context characters either side), where it starts, its length
select f.id as fragment_id, s.name as source, v.version, v.label as version_label, f.start_offset, f.end_offset,
       greatest(f.start_offset - %(context)s, 0) as excerpt_start,
       substr(v.content, greatest(f.start_offset - %(context)s, 0) + 1,
              least(f.end_offset + %(context)s, length(v.content)) - greatest(f.start_offset - %(context)s, 0))
         as excerpt,
       length(v.content) as length,
       v.retracted_at is not null or s.retracted_at is not null as retracted
  from beliefdb.fragment f
  -- each by its key from the fragment (offset 0 keeps the lookups in this order: joined freely, the planner,
  -- knowing nothing of one workspace's share of the sources, walked every source of the workspace)
  cross join lateral (select v.version, v.label, v.content, v.retracted_at, v.source_id
                        from beliefdb.source_version v
                       where v.workspace_id = f.workspace_id and v.id = f.source_version_id offset 0) v
  cross join lateral (select s.name, s.retracted_at
                        from beliefdb.source s
                       where s.workspace_id = f.workspace_id and s.id = v.source_id offset 0) s
 where f.workspace_id = beliefdb.current_workspace_id() and f.id = any(%(ids)s::uuid[])
 order by s.name, v.version, f.start_offset;

-- job_submit --
-- Queue one job per payload (a JSON array), in order, but none that would change nothing: a row per payload,
-- in order, the job queued or why it was not (unchanged)
select s.job, s.unchanged from beliefdb.job_submit(%s, %s, %s) as s;

-- job_take --
-- Take the oldest ready job no other worker holds, locked until this transaction ends (none: no row)
select j.id, j.payload, j.attempts, j.max_attempts from beliefdb.job_take(%s) as j;

-- job_taken_failed --
-- The jobs job_take failed in this transaction, their workers having died during every attempt (id, source, attempts, error)
select f.id, f.source, f.attempts, f.error
  from pg_catalog.jsonb_to_recordset(coalesce(
           nullif(pg_catalog.current_setting('beliefdb.jobs_failed_taking', true), ''), '[]')::jsonb)
       as f(id bigint, source text, attempts integer, error text);

-- job_started --
-- Record that this worker started a job (on a connection of its own: committed at once); how many times it was started
select beliefdb.job_started(%s, %s);

-- job_start_id --
-- The start this transaction recorded (job_started) of a job by this worker
select max(s.id) from beliefdb.job_start s where s.job_id = %s and s.worker = %s;

-- job_extraction_time --
-- Let the transaction of the job this worker took stay idle while its llm extractor reads the document, for
-- at most this many milliseconds: the session's idle_in_transaction_session_timeout raised to it for this
-- transaction only (never lowered, and left off where it is off); docs/operations.md, Limits
select pg_catalog.set_config('idle_in_transaction_session_timeout',
                             -- (an integer setting: at most 2^31 - 1 ms, about 24 days, however long the wait)
                             least(greatest(s.setting::bigint, %s::bigint), 2147483647)::text, true)
  from pg_catalog.pg_settings s
 where s.name = 'idle_in_transaction_session_timeout' and s.setting <> '0';

-- job_start_lost --
-- A start of a queued job whose worker lost its connection: no attempt (deleted); whether it was
select beliefdb.job_start_lost(%s);

-- job_finish --
-- Mark the job this transaction took as done, with its result
select beliefdb.job_finish(%s, %s);

-- job_wait --
-- The job this transaction took waited for the workspace another writer held: queued as it was, its start deleted
select beliefdb.job_wait(%s, %s);

-- job_fail --
-- Record why the job this transaction took failed; its status after (queued again, or failed: after its
-- last attempt, or at once when final)
select beliefdb.job_fail(%s, %s, %s, %s);

-- job_retry --
-- Queue failed jobs again with their attempts afresh (null: every failed job this session may retry); the ids, in order
select s.id from beliefdb.job_retry(%s) as s(id);

-- job_cancel --
-- Delete queued or failed jobs (by id, or every one of a source name) with their starts and text; the ids, in order
select s.id from beliefdb.job_cancel(%s, %s) as s(id);

-- jobs_list --
-- The workspace's jobs, newest first, of one status when given, before a job id when given
select * from beliefdb.jobs(%s, %s, %s);

-- job_totals --
-- How many of the workspace's jobs are in each status (of one status only, before a job id, when given)
select t.status, t.jobs from beliefdb.job_totals(%s, %s) as t;

-- jobs_next_ready --
-- When the earliest queued job this session may take is ready (at: null when none is queued; as
-- job_take, an agent's login takes only its own jobs), and whether the bound workspace still exists
-- (a worker's workspace deleted under it has nothing more to do)
select min(j.run_after) as at,
       exists (select from beliefdb.workspace w where w.id = beliefdb.current_workspace_id()) as workspace_exists
  from beliefdb.job j
 where j.status = 'queued'
   and (j.submitted_by = beliefdb.current_principal()
        or pg_catalog.pg_has_role(session_user, (select n.nspowner from pg_catalog.pg_namespace n
                                                 where n.nspname = 'beliefdb'), 'member'));

-- lock_workspace --
-- Take the bound workspace's writer lock now (held until the transaction ends)
select beliefdb.lock_workspace();

-- clock_now --
-- beliefdb's clock (the beliefdb.now setting when set, else the transaction's time)
select beliefdb.clock();

-- conversation_in_force --
-- The text, version and turns (fragments with a speaker, in text order) of a source's latest version not
-- retracted (in force; of a retracted source, the one restoring it puts in force), and whether it is the
-- source's latest version (a turn then grows it in place; else the turn makes a new version of it all)
select v.content, v.version,
       coalesce(jsonb_agg(jsonb_build_object('start', f.start_offset, 'end', f.end_offset, 'speaker', f.speaker,
                                             'time', f.spoken_at) order by f.start_offset)
                filter (where f.speaker is not null), '[]'),
       not exists (select from beliefdb.source_version l
                    where l.workspace_id = s.workspace_id and l.source_id = s.id and l.version > v.version)
  from beliefdb.source s
  join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
  left join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
 where s.name = %s
   and v.version = (select max(w.version) from beliefdb.source_version w
                     where w.workspace_id = s.workspace_id and w.source_id = s.id and w.retracted_at is null)
 group by s.workspace_id, s.id, v.content, v.version;

-- moved_extensions --
-- The extensions (vector, pg_trgm) now in a schema that a beliefdb function searching them does not have on its search path (each took the path of the migration that applied it: one run again applies them with the new one)
select distinct e.extname::text as extension, n.nspname::text as schema
  from pg_catalog.pg_proc p
 cross join lateral pg_catalog.unnest(p.proconfig) as c (setting)
  join pg_catalog.pg_extension e on e.extname in ('vector', 'pg_trgm')
  join pg_catalog.pg_namespace n on n.oid = e.extnamespace
 where p.pronamespace = pg_catalog.to_regnamespace('beliefdb')
   and pg_catalog.starts_with(c.setting, 'search_path=')
   and c.setting <> 'search_path=pg_catalog, pg_temp'
   and not pg_catalog.quote_ident(n.nspname) = any (pg_catalog.string_to_array(pg_catalog.substr(c.setting, 13), ', '))
 order by 1;
