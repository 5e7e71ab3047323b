-- beliefdb: the set-based part of a bulk ingest (docs/rules.md, rules 1, 2, 8, 12, 15 and 18).
-- A run of staged documents that each start a new source (no source of the workspace has the name,
-- and no other document of the run) is stored as the one by one path (_ingest_text, _add_claims)
-- would store them, in this order, but with one statement per table for the whole run: sources,
-- first versions, fragments and their node rows, then the claims. A claim that is the only one of
-- the run on its subject and attribute meets no other claim of the run whatever the order: those
-- that can only be new beliefs are stored at once, and settled (rule 8) only where some other
-- belief of the workspace has their subject and attribute (no such belief, no rival). The other
-- claims go in rounds: round r holds the r-th claim of the run (in document and claim order) on
-- each subject and attribute, so a round's claims meet none of each other's, and each meets the
-- claims before it on its own subject and attribute as one by one (unchanged, corroborated, or a new
-- belief, settled at its document's time). One propagation for the whole run. Each row still
-- gets its statement's audit event (rule 12), one per statement and table for the run.

-- Rule 8 for the claims of a bulk run in pg_temp.beliefdb_bulk_due (its new or corroborated belief),
-- as beliefdb._settle would settle each in claim order, and return the seeds each adds to the
-- propagation (p_winners: the winners of its supersessions too, as the rounds add them). The claims
-- of one call are on distinct subjects and attributes (the first claims of the run on each, or one
-- round), so the rivals of one are no other's and what settling one changes no other reads: a new
-- belief that beats every rival it has (beliefdb._compare_beliefs) when the acting principal owns
-- them all supersedes each, as _settle would one call each (199 calls, 0.6 s of a batch at a
-- million), here in one statement per table, at its document's time; any other (a tie, a loss, a
-- rival of another owner, a corroborated belief, which may have supersessions into it to end) is
-- settled by beliefdb._settle, in order. Each claim keeps what it settled, and each document gets
-- its claims' in claim order, after what it had.
create or replace function beliefdb._bulk_settle(p_workspace_id uuid, p_owner text, p_winners boolean)
returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_now timestamptz := nullif(pg_catalog.current_setting('beliefdb.now', true), '')::timestamptz;
    v_row record;
    v_settled jsonb;
begin
    analyze pg_temp.beliefdb_bulk_due;
    truncate pg_temp.beliefdb_bulk_rival;
    insert into pg_temp.beliefdb_bulk_rival (n, ord, belief_id, at, k, rival_id, cmp, owner)
    select d.n, d.ord, d.belief_id, w.at,
           row_number() over (partition by d.n, d.ord order by r.recorded_at, r.id), r.id,
           beliefdb._compare_beliefs(p_workspace_id, d.belief_id, r.id), r.owner
      from pg_temp.beliefdb_bulk_due d
      join pg_temp.beliefdb_bulk_first f on f.n = d.n
     -- (beliefdb.clock() as _settle reads it, with the document's batch_clock)
     cross join lateral (select coalesce(v_now, case when f.at between pg_catalog.now() and pg_catalog.clock_timestamp()
                                                    then f.at end, pg_catalog.now()) as at) w
     cross join lateral (select b.subject, b.attribute, b.scope, b.value, b.valid_time, b.provenance
                           from beliefdb.belief b
                          where b.workspace_id = p_workspace_id and b.id = d.belief_id
                            and b.status in ('current', 'conflicting')
                            and (upper_inf(b.valid_time) or upper(b.valid_time) > w.at)
                         offset 0) b
     cross join lateral (select r.id, r.recorded_at, r.owner
                           from beliefdb.belief r
                          where r.workspace_id = p_workspace_id and r.subject = b.subject
                            and r.attribute = b.attribute and r.scope = b.scope and r.value <> b.value
                            and r.valid_time && b.valid_time and r.provenance = b.provenance
                            and r.status in ('current', 'conflicting') and r.id <> d.belief_id
                            and (upper_inf(r.valid_time) or upper(r.valid_time) > w.at)
                         offset 0) r
     where d.outcome is distinct from 'corroborated';
    update pg_temp.beliefdb_bulk_due d set settled = 'slow'
     where d.outcome = 'corroborated'
        or exists (select from pg_temp.beliefdb_bulk_rival x
                    where x.n = d.n and x.ord = d.ord and not coalesce(x.cmp > 0 and x.owner = p_owner, false));
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason, created_at)
    select p_workspace_id, x.belief_id, x.rival_id, 'supersedes', 'rule 8: stronger or more recent', x.at
      from pg_temp.beliefdb_bulk_rival x
      join pg_temp.beliefdb_bulk_due d on d.n = x.n and d.ord = x.ord
     where d.settled is null
     order by x.n, x.ord, x.k;
    update beliefdb.belief b set status = 'superseded', revision = b.revision + 1
     where b.workspace_id = p_workspace_id
       and b.id = any(array(select x.rival_id from pg_temp.beliefdb_bulk_rival x
                              join pg_temp.beliefdb_bulk_due d on d.n = x.n and d.ord = x.ord
                             where d.settled is null));
    update pg_temp.beliefdb_bulk_due d set superseded = x.superseded
      from (select x.n, x.ord, jsonb_agg(jsonb_build_object('old', x.rival_id, 'new', x.belief_id) order by x.k)
                   as superseded
              from pg_temp.beliefdb_bulk_rival x group by x.n, x.ord) x
     where x.n = d.n and x.ord = d.ord and d.settled is null;
    for v_row in
        select d.n, d.ord, d.belief_id, f.at from pg_temp.beliefdb_bulk_due d
          join pg_temp.beliefdb_bulk_first f on f.n = d.n
         where d.settled = 'slow'
         order by d.n, d.ord
    loop
        perform pg_catalog.set_config('beliefdb.batch_clock', v_row.at::text, true);
        v_settled := beliefdb._settle(p_workspace_id, v_row.belief_id);
        update pg_temp.beliefdb_bulk_due d
           set superseded = v_settled -> 'superseded', conflicts = v_settled -> 'conflicts'
         where d.n = v_row.n and d.ord = v_row.ord;
    end loop;
    update pg_temp.beliefdb_bulk_first f
       set superseded = f.superseded || coalesce(x.superseded, '[]'), conflicts = f.conflicts || coalesce(x.conflicts, '[]')
      from (select d.n, jsonb_agg(s.e order by d.ord, s.k) filter (where s.what = 's') as superseded,
                   jsonb_agg(s.e order by d.ord, s.k) filter (where s.what = 'c') as conflicts
              from pg_temp.beliefdb_bulk_due d
             cross join lateral (select 's' as what, x.e, x.k from jsonb_array_elements(d.superseded) with ordinality as x (e, k)
                                 union all
                                 select 'c', x.e, x.k from jsonb_array_elements(d.conflicts) with ordinality as x (e, k)) s
             group by d.n) x
     where x.n = f.n;
    -- (the seeds: the rivals each conflicts with and those it superseded, with the winners if asked)
    return array(select (x.v ->> 'b')::uuid
                   from pg_temp.beliefdb_bulk_due d cross join lateral jsonb_array_elements(d.conflicts) as x (v)
                 union all
                 select (x.v ->> 'old')::uuid
                   from pg_temp.beliefdb_bulk_due d cross join lateral jsonb_array_elements(d.superseded) as x (v)
                 union all
                 select (x.v ->> 'new')::uuid
                   from pg_temp.beliefdb_bulk_due d cross join lateral jsonb_array_elements(d.superseded) as x (v)
                  where p_winners);
end
$$;
comment on function beliefdb._bulk_settle(uuid, text, boolean)
    is 'Rule 8 for the claims of a bulk run in beliefdb_bulk_due, set-based where the new belief beats every rival it owns, else by _settle; uuid[]: the seeds they add';

-- Store the staged documents p_ns (a run as above, in order) and return one ingest report each,
-- in order; the last carries the run's propagation (what stopped holding, flagged, held).
create or replace function beliefdb._bulk_first_versions(
    p_workspace_id uuid, p_ns integer[], p_origin beliefdb.origin_type, p_authority beliefdb.authority,
    p_provenance beliefdb.provenance
) returns jsonb[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_world beliefdb.provenance := coalesce(p_provenance, 'production');
    -- (the owner once for the run, not the column's default once a row: stamp_owner says the same)
    v_owner text := beliefdb.current_principal();
    -- The confidence a new belief quoted by one new source of the run's authority comes out with
    -- (rule 9: that authority alone, noisy-or of one, fresh, no open conflict), as
    -- beliefdb._confidences computes it, stored at insert: the refresh after the propagation
    -- computes every new belief again and writes only those that came out otherwise (a tie, a fixed
    -- clock), where it rewrote every new row (an update that is not HOT: every index of belief again)
    v_confidence real;
    -- (each document stamped as one by one would: later than the one before, never equal, so that
    -- rule 8 ranks the later version as the later one; with the clock fixed (beliefdb.now), at that
    -- clock, as every other write of the session and as _bulk_settle dates what it settles)
    v_fixed timestamptz := nullif(pg_catalog.current_setting('beliefdb.now', true), '')::timestamptz;
    v_base timestamptz := coalesce(v_fixed,
                                   pg_catalog.clock_timestamp() - make_interval(secs => cardinality(p_ns) / 1e6));
    v_count integer;
    v_settled jsonb;
    v_row record;
    v_valid tstzrange;
    v_from timestamptz;
    v_to timestamptz;
    v_changes jsonb;
    v_seeds uuid[] := '{}';
    v_fresh boolean;
    v_reports jsonb[] := '{}';
    -- The ids of the run's rows (sources, versions, fragments, beliefs, justifications) share their
    -- first byte, drawn once for the run, the rest random: every index leading with one of them takes
    -- the run's keys in a 256th of its leaf pages, not one random leaf page each, which at a million
    -- rows in the store are rarely in memory (the node and justification inserts took 2.5 times as
    -- long). Not a time prefix, as a version-7 UUID has: the eight characters every listing shows, and
    -- a person types back as a prefix, would then be the same for a whole run.
    v_prefix bytea := substring(uuid_send(pg_catalog.gen_random_uuid()) from 1 for 1);
    -- The rest of each id: the first 16 bytes of the SHA-256 of this seed, drawn once for the run
    -- (244 random bits), and the row's key in the run (a tag for the table, then its document and
    -- claim or offsets), so as unpredictable as the seed and distinct within the run. Not a
    -- gen_random_uuid() a row: where the server is built without OpenSSL (the embedded one), each
    -- call opens and reads /dev/urandom, 8 us, 0.25 s of the ~31,000 ids of a batch of 10,000 claims.
    -- Bytes 7 and 9 are set as a version-4 UUID has them (its version and variant, 112 bits of the hash
    -- left), so that what checks for one (a pydantic UUID4 field) takes these ids as it took the random ones
    v_seed bytea := uuid_send(pg_catalog.gen_random_uuid()) || uuid_send(pg_catalog.gen_random_uuid());
begin
    perform beliefdb._begin_changes();
    select (1 - beliefdb.floored_product(ln(greatest(1 - p.weight, 1e-9))))::real into v_confidence
      from beliefdb.confidence_policy p
     where p.factor = 'authority'
       and p.key = coalesce(p_authority, beliefdb._new_source_authority(coalesce(p_origin, 'document')))::text;
    v_confidence := least(1, greatest(0, coalesce(v_confidence, 0)));
    perform beliefdb._claim_working_tables(array['beliefdb_bulk_first', 'beliefdb_bulk_first_fragment',
                                                  'beliefdb_bulk_first_claim', 'beliefdb_bulk_due',
                                                  'beliefdb_bulk_rival']);
    create temporary table if not exists beliefdb_bulk_first (
        n integer primary key, at timestamptz not null, source_id uuid not null, version_id uuid not null,
        fragments integer not null default 0, superseded jsonb not null default '[]',
        conflicts jsonb not null default '[]') on commit drop;
    create temporary table if not exists beliefdb_bulk_first_fragment (
        n integer not null, id uuid not null, s integer not null, e integer not null, text text not null,
        primary key (n, s, e)) on commit drop;
    create temporary table if not exists beliefdb_bulk_first_claim (
        n integer not null, ord integer not null, s integer, e integer, actual text, claim jsonb not null,
        subject text not null, attribute text not null, valid tstzrange, eligible boolean not null default false,
        belief_id uuid, fragment_id uuid, justification_id uuid, round integer, outcome text,
        rival boolean not null default false, repeats boolean not null default false, primary key (n, ord))
        on commit drop;
    -- (the claims one _bulk_settle call settles, and what each settled; their rivals)
    create temporary table if not exists beliefdb_bulk_due (
        n integer not null, ord integer not null, belief_id uuid not null, outcome text, settled text,
        superseded jsonb not null default '[]', conflicts jsonb not null default '[]', primary key (n, ord))
        on commit drop;
    create temporary table if not exists beliefdb_bulk_rival (
        n integer not null, ord integer not null, belief_id uuid not null, at timestamptz not null,
        k integer not null, rival_id uuid not null, cmp integer, owner text) on commit drop;
    truncate pg_temp.beliefdb_bulk_first, pg_temp.beliefdb_bulk_first_fragment, pg_temp.beliefdb_bulk_first_claim,
             pg_temp.beliefdb_bulk_due, pg_temp.beliefdb_bulk_rival;

    insert into pg_temp.beliefdb_bulk_first (n, at, source_id, version_id)
    select u.n, coalesce(v_fixed, v_base + make_interval(secs => u.k / 1e6)),
           encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(1) || int4send(u.n)) from 1 for 16)
                          placing v_prefix from 1 for 1)
                          placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid,
           encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(2) || int4send(u.n)) from 1 for 16)
                          placing v_prefix from 1 for 1)
                          placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid
      from unnest(p_ns) with ordinality as u (n, k);
    -- (the planner gets the sizes, and statistics of the columns joined on only: of the texts and
    -- claims themselves they cost more than the joins they plan)
    analyze pg_temp.beliefdb_bulk_first, pg_temp.beliefdb_bulk_document (n), pg_temp.beliefdb_bulk_fragment (n),
            pg_temp.beliefdb_bulk_claim (n, ord);
    if exists (select from pg_temp.beliefdb_bulk_document d join pg_temp.beliefdb_bulk_first f on f.n = d.n
                where d.source like 'correction:%') then
        raise exception '% names a reviewer''s correction (correction:...): it holds the reviewer''s text alone (give the text another source name)',
            (select d.source from pg_temp.beliefdb_bulk_document d join pg_temp.beliefdb_bulk_first f on f.n = d.n
              where d.source like 'correction:%' order by d.n limit 1) using errcode = 'BD005';
    end if;
    if exists (select from pg_temp.beliefdb_bulk_document d join pg_temp.beliefdb_bulk_first f on f.n = d.n
                where d.content = '') then
        raise exception 'source % has empty text',
            (select d.source from pg_temp.beliefdb_bulk_document d join pg_temp.beliefdb_bulk_first f on f.n = d.n
              where d.content = '' order by d.n limit 1) using errcode = 'BD005';
    end if;
    -- (valid_from = valid_to is a range of no time, which PostgreSQL keeps as 'empty': read back, it
    -- has no bounds, as if valid always; refused as the one-by-one path refuses it, _add_claims)
    select c.valid_from::timestamptz, c.valid_to::timestamptz into v_from, v_to
      from pg_temp.beliefdb_bulk_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
     where c.valid_from::timestamptz >= c.valid_to::timestamptz
     order by c.n, c.ord limit 1;
    if found then
        raise exception 'valid time is empty: valid_to (%) must be after valid_from (%)', v_to, v_from
            using errcode = 'BD005';
    end if;

    insert into beliefdb.source (workspace_id, id, name, origin_type, authority, provenance, created_at)
    select p_workspace_id, f.source_id, d.source, coalesce(p_origin, 'document'),
           coalesce(p_authority, beliefdb._new_source_authority(coalesce(p_origin, 'document'))),
           v_world, f.at
      from pg_temp.beliefdb_bulk_first f join pg_temp.beliefdb_bulk_document d on d.n = f.n
     order by f.n;
    insert into beliefdb.source_version (workspace_id, id, source_id, version, content, sha256, label, path, recorded_at)
    select p_workspace_id, f.version_id, f.source_id, 1, d.content, ''::bytea, d.label, d.path, f.at
      from pg_temp.beliefdb_bulk_first f join pg_temp.beliefdb_bulk_document d on d.n = f.n
     order by f.n;

    -- the fragments the documents were split into (the same span twice is one), each text read in
    -- one pass of its document
    insert into pg_temp.beliefdb_bulk_first_fragment (n, id, s, e, text)
    select x.n, encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(3) || int4send(x.n) || int4send(x.s) || int4send(x.e))
                               from 1 for 16) placing v_prefix from 1 for 1)
                                              placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid,
           x.s, x.e, x.text
      from (select distinct on (g.n, u.s, u.e) g.n, u.s, u.e, u.text
              from (select fr.n, array_agg(fr.start_offset order by fr.start_offset, fr.end_offset) as starts,
                           array_agg(fr.end_offset order by fr.start_offset, fr.end_offset) as ends
                      from pg_temp.beliefdb_bulk_fragment fr join pg_temp.beliefdb_bulk_first f on f.n = fr.n
                     group by fr.n) g
              join pg_temp.beliefdb_bulk_document d on d.n = g.n
             cross join lateral unnest(g.starts, g.ends, beliefdb._slices(d.content, g.starts, g.ends)) as u (s, e, text)
             order by g.n, u.s, u.e) x;
    update pg_temp.beliefdb_bulk_first f set fragments = c.count
      from (select fr.n, count(*) as count from pg_temp.beliefdb_bulk_first_fragment fr group by fr.n) c
     where c.n = f.n;

    -- every claim with the text at its offsets (a span that cannot be in the text: null); the length
    -- of each document once (offset 0), not once a claim: a text of a few kB is kept compressed, and
    -- read back for each of its claims it took 0.1 s of a batch of 10,000)
    insert into pg_temp.beliefdb_bulk_first_claim (n, ord, claim, subject, attribute, s, e)
    select c.n, c.ord,
           jsonb_build_object('statement', c.statement, 'subject', c.subject, 'attribute', c.attribute,
                              'value', c.value, 'quote', c.quote, 'start', c.start_offset, 'end', c.end_offset,
                              'kind', coalesce(c.kind, 'fact'), 'scope', coalesce(c.scope, '{}'),
                              'valid_from', c.valid_from, 'valid_to', c.valid_to),
           c.subject, c.attribute,
           case when c.start_offset >= 0 and c.end_offset > c.start_offset and c.end_offset <= d.length
                then c.start_offset end,
           case when c.start_offset >= 0 and c.end_offset > c.start_offset and c.end_offset <= d.length
                then c.end_offset end
      from pg_temp.beliefdb_bulk_claim c
      join (select d.n, length(d.content) as length
              from pg_temp.beliefdb_bulk_first f join pg_temp.beliefdb_bulk_document d on d.n = f.n
            offset 0) d on d.n = c.n;
    analyze pg_temp.beliefdb_bulk_first_claim (n, ord, s, e);
    update pg_temp.beliefdb_bulk_first_claim c set actual = x.actual
      from (select g.n, u.ord, u.actual
              from (select c.n, array_agg(c.ord order by c.ord) as ords, array_agg(c.s order by c.ord) as starts,
                           array_agg(c.e order by c.ord) as ends
                      from pg_temp.beliefdb_bulk_first_claim c group by c.n) g
              join pg_temp.beliefdb_bulk_document d on d.n = g.n
             cross join lateral unnest(g.ords, beliefdb._slices(d.content, g.starts, g.ends)) as u (ord, actual)) x
     where x.n = c.n and x.ord = c.ord;
    -- the fragments of the claims the gate lets through (as _add_claims: those not split already)
    insert into pg_temp.beliefdb_bulk_first_fragment (n, id, s, e, text)
    select distinct on (c.n, c.s, c.e)
           c.n, encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(3) || int4send(c.n) || int4send(c.s) || int4send(c.e))
                               from 1 for 16) placing v_prefix from 1 for 1)
                                              placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid,
           c.s, c.e, c.actual
      from pg_temp.beliefdb_bulk_first_claim c
     where c.s is not null and c.actual = c.claim ->> 'quote'
       and not exists (select from pg_temp.beliefdb_bulk_first_fragment x where x.n = c.n and x.s = c.s and x.e = c.e)
     order by c.n, c.s, c.e;
    analyze pg_temp.beliefdb_bulk_first_fragment (n, s, e);
    -- (a fragment of a first version in force holds and is current: stored so, the propagation
    -- below finds nothing to change in it, and no justification waits for it. Its adjacency self
    -- row is written from the rows inserted, as the insert trigger would write it, which skips them:
    -- beliefdb._adjacency_noted)
    perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' node', true);
    with came as (
        insert into beliefdb.node (workspace_id, id, kind, holds, current, created_at)
        select p_workspace_id, x.id, 'fragment', true, true, f.at
          from pg_temp.beliefdb_bulk_first_fragment x join pg_temp.beliefdb_bulk_first f on f.n = x.n
        returning workspace_id, id, kind, holds, current, retracted_at)
    insert into beliefdb.adjacency (workspace_id, node, entry, justification, kind, holds, current, retracted, related)
    select c.workspace_id, c.id, 'self', c.id, c.kind, c.holds, c.current, c.retracted_at is not null, false
      from came c;
    perform pg_catalog.set_config('beliefdb.adjacency_noted', '', true);
    -- (noted as created here, in one statement: create_node is told so and skips them, where it
    -- took 30 us a row to find each node row and note it; the foreign key to node still checks it)
    insert into pg_temp.beliefdb_changes (id, kind, held, was_current, created)
    select x.id, 'fragment', false, false, true from pg_temp.beliefdb_bulk_first_fragment x
    on conflict (id) do nothing;
    perform pg_catalog.set_config('beliefdb.nodes_noted', pg_catalog.now()::text, true);
    insert into beliefdb.fragment (workspace_id, id, source_version_id, start_offset, end_offset, text)
    select p_workspace_id, x.id, f.version_id, x.s, x.e, x.text
      from pg_temp.beliefdb_bulk_first_fragment x join pg_temp.beliefdb_bulk_first f on f.n = x.n
     order by x.n, x.s, x.e;
    perform pg_catalog.set_config('beliefdb.nodes_noted', '', true);

    -- the claims that can only be new beliefs with no rival in the run: through the gate, a valid
    -- time in range, the only claim of the run on their subject and attribute, and a claim no
    -- belief of the workspace has ever been (as _add_claims decides for one document)
    -- (each claim through the gate has its fragment: one update of the claims for both)
    update pg_temp.beliefdb_bulk_first_claim c
       set valid = tstzrange((c.claim ->> 'valid_from')::timestamptz, (c.claim ->> 'valid_to')::timestamptz, '[)'),
           fragment_id = x.id
      from pg_temp.beliefdb_bulk_first_fragment x
     where x.n = c.n and x.s = c.s and x.e = c.e and c.actual = c.claim ->> 'quote';
    -- (the planner gets the sizes: hash joins, not a nested loop per claim)
    analyze pg_temp.beliefdb_bulk_first_claim (n, ord, s, e, subject, attribute, valid);
    -- (one probe of the subject and attribute index per claim says both whether the claim is a
    -- belief already and whether any belief has its subject and attribute, a rival under rule 8)
    update pg_temp.beliefdb_bulk_first_claim c
       set eligible = true,
           belief_id = encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(4) || int4send(c.n) || int4send(c.ord))
                                      from 1 for 16) placing v_prefix from 1 for 1)
                                                     placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid,
           justification_id = encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(5) || int4send(c.n) || int4send(c.ord))
                                             from 1 for 16) placing v_prefix from 1 for 1)
                                                            placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid,
           rival = once.rival
      from (select o.n, o.ord, p.recorded, p.rival
              from (select t.n, t.ord, t.subject, t.attribute, t.claim, t.valid,
                           count(*) over (partition by t.subject, t.attribute) as same
                      from pg_temp.beliefdb_bulk_first_claim t) o
             cross join lateral (select coalesce(bool_or(b.value = o.claim ->> 'value' and b.scope = o.claim -> 'scope'
                                                         and b.valid_time = o.valid and b.provenance = v_world),
                                                 false) as recorded,
                                        count(*) > 0 as rival
                                   from beliefdb.belief b
                                  where b.workspace_id = p_workspace_id
                                    and b.subject = o.subject and b.attribute = o.attribute
                                 offset 0) as p
             where o.same = 1) once
     where once.n = c.n and once.ord = c.ord and not once.recorded
       and c.valid is not null
       and (lower_inf(c.valid) or lower(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00')
       and (upper_inf(c.valid) or upper(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00');
    analyze pg_temp.beliefdb_bulk_first_claim (n, ord, subject, attribute, eligible, belief_id, fragment_id);
    -- (a new belief on such a fragment holds; current unless rule 8 or its valid time says
    -- otherwise, which the propagation below corrects. Stored so, it is current before the
    -- propagation as one by one, which settles it again only if it was not: a settled new belief,
    -- settled again, changes nothing. It holds by its one justification, one rank above its new
    -- fragment, which has none (-1): stored so too, the propagation finds nothing to write in it,
    -- where updating every new node row again took a second of a batch at a million. Its
    -- adjacency self row as the fragments' above: a new node is in no relation yet)
    perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' node', true);
    with came as (
        insert into beliefdb.node (workspace_id, id, kind, holds, current, created_at, support, support_rank)
        select p_workspace_id, c.belief_id, 'belief', true, true, f.at, c.justification_id, 0
          from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n where c.eligible
        returning workspace_id, id, kind, holds, current, retracted_at)
    insert into beliefdb.adjacency (workspace_id, node, entry, justification, kind, holds, current, retracted, related)
    select c.workspace_id, c.id, 'self', c.id, c.kind, c.holds, c.current, c.retracted_at is not null, false
      from came c;
    perform pg_catalog.set_config('beliefdb.adjacency_noted', '', true);
    insert into pg_temp.beliefdb_changes (id, kind, held, was_current, created)
    select c.belief_id, 'belief', false, false, true from pg_temp.beliefdb_bulk_first_claim c where c.eligible
    on conflict (id) do nothing;
    perform pg_catalog.set_config('beliefdb.nodes_noted', pg_catalog.now()::text, true);
    perform pg_catalog.set_config('beliefdb.owner_stamped', pg_catalog.now()::text || ' ' || v_owner, true);
    insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, kind, scope,
                                 valid_time, recorded_at, provenance, confidence_kind, owner, confidence)
    select p_workspace_id, c.belief_id, c.claim ->> 'statement', c.subject, c.attribute, c.claim ->> 'value',
           c.claim ->> 'kind', c.claim -> 'scope', c.valid, f.at, v_world, 'extracted', v_owner, v_confidence
      from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
     where c.eligible
     order by c.n, c.ord;
    get diagnostics v_count = row_count;
    perform pg_catalog.set_config('beliefdb.nodes_noted', '', true);
    perform pg_catalog.set_config('beliefdb.owner_stamped', '', true);
    -- one justification each, its antecedent the claim's fragment, and the evidence (as _add_evidence).
    -- The adjacency rows of both are written here from the rows inserted (the insert triggers skip
    -- them: beliefdb._adjacency_noted), as the triggers would write them: the in row of each
    -- justification with its unmet; the out row of each edge, the support of its belief (stored so
    -- above), into no decision, with no leaf columns: a consequent is a belief and an antecedent a
    -- new fragment with no justification, never leaves, so no leaf column of any row changes
    perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' justification', true);
    with came as (
        insert into beliefdb.justification (workspace_id, id, consequent, created_at)
        select p_workspace_id, c.justification_id, c.belief_id, f.at
          from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n where c.eligible
        returning workspace_id, id, consequent, unmet)
    insert into beliefdb.adjacency (workspace_id, node, entry, justification, unmet)
    select c.workspace_id, c.consequent, 'in', c.id, c.unmet from came c;
    -- (each edge with its consequent, the belief its justification was just inserted for, and
    -- every antecedent a fragment stored current: beliefdb.edges_noted tells the triggers that
    -- would look the consequent up again and recount unmet, 0 as inserted, to skip the statement)
    perform pg_catalog.set_config('beliefdb.edges_noted', pg_catalog.now()::text, true);
    perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' justification_antecedent', true);
    with came as (
        insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind, consequent)
        select p_workspace_id, c.justification_id, c.fragment_id, 'evidence', c.belief_id
          from pg_temp.beliefdb_bulk_first_claim c where c.eligible
        returning workspace_id, antecedent, justification_id, consequent)
    insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, support, into_decision)
    select c.workspace_id, c.antecedent, 'out', c.justification_id, c.consequent, true, false from came c;
    perform pg_catalog.set_config('beliefdb.edges_noted', '', true);
    perform pg_catalog.set_config('beliefdb.adjacency_noted', '', true);
    insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id, created_at)
    select p_workspace_id, c.belief_id, c.fragment_id, c.actual, 'supports', c.justification_id, f.at
      from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n where c.eligible;
    if v_count >= 64 then
        perform beliefdb._restat_ingest_tables(v_count);
    end if;

    -- rule 8 for those of them some other belief has the subject and attribute of (the others have
    -- no rival), in order (_bulk_settle)
    insert into pg_temp.beliefdb_bulk_due (n, ord, belief_id)
    select c.n, c.ord, c.belief_id from pg_temp.beliefdb_bulk_first_claim c where c.eligible and c.rival;
    v_seeds := v_seeds || beliefdb._bulk_settle(p_workspace_id, v_owner, false);

    -- Every other claim (its subject and attribute has another claim in the run) as _add_claims
    -- decides it one by one, in rounds: round r holds the r-th claim of the run (in document and
    -- claim order) on each subject and attribute, so the claims of one round meet none of each
    -- other's, and each meets the ones before it on its subject and attribute as one by one.
    -- A claim that says again what the claim before it on its subject and attribute said, in the same
    -- document (not a conversation: there a later turn ranks higher), through the gate both, at a
    -- fragment of its own, repeats it: the repeats of one claim share the round after it, each
    -- corroborating the belief it made or corroborated, and settle nothing (the same words of one
    -- version rank the same: settled again, it changed nothing). A line repeated through a file was
    -- a round each, a file of 10,000 such lines past the 600 s timeout.
    update pg_temp.beliefdb_bulk_first_claim c set round = x.round, repeats = x.repeats
      from (select y.n, y.ord, y.repeats,
                   sum(case when not y.repeats or not y.after_repeat then 1 else 0 end)
                       over (partition by y.subject, y.attribute order by y.n, y.ord) as round
              from (select z.n, z.ord, z.subject, z.attribute, z.repeats,
                           coalesce(lag(z.repeats) over (partition by z.subject, z.attribute order by z.n, z.ord),
                                    false) as after_repeat
                      from (select t.n, t.ord, t.subject, t.attribute,
                                   coalesce(p_origin, 'document') <> 'conversation' and t.passes
                                   and t.first_at_fragment
                                   and coalesce(lag(t.passes) over w and lag(t.n) over w = t.n
                                                and lag(t.claim ->> 'value') over w = t.claim ->> 'value'
                                                and lag(t.claim -> 'scope') over w = t.claim -> 'scope'
                                                and lag(t.valid) over w = t.valid, false) as repeats
                              from (select t.*, t.s is not null and t.actual = t.claim ->> 'quote' and t.valid is not null as passes,
                                           row_number() over (partition by t.subject, t.attribute, t.n, t.s, t.e,
                                                                           t.claim ->> 'value', t.claim -> 'scope', t.valid
                                                              order by t.ord) = 1 as first_at_fragment
                                      from pg_temp.beliefdb_bulk_first_claim t where not t.eligible) t
                            window w as (partition by t.subject, t.attribute order by t.n, t.ord)) z) y) x
     where x.n = c.n and x.ord = c.ord;
    for v_round in 1 .. coalesce((select max(c.round) from pg_temp.beliefdb_bulk_first_claim c), 0) loop
        -- the gate, again: Python found the offsets, the database checks them
        update pg_temp.beliefdb_bulk_first_claim c set outcome = 'rejected'
         where c.round = v_round and (c.s is null or c.actual is distinct from c.claim ->> 'quote');
        select c.valid into v_valid from pg_temp.beliefdb_bulk_first_claim c
         where c.round = v_round and c.outcome is null
           and ((not lower_inf(c.valid) and not (lower(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00'))
                or (not upper_inf(c.valid) and not (upper(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00')))
         order by c.n, c.ord limit 1;
        if found then
            raise exception 'valid time out of range: % (from 0001-01-02 to 9999-12-30, not infinity)', v_valid
                using errcode = 'BD005';
        end if;
        -- recorded from this very fragment before: nothing new (rule 18); else the same claim,
        -- believed now (or expired), gets the fragment as evidence (corroborated); else a new belief
        update pg_temp.beliefdb_bulk_first_claim c
           set outcome = case when m.recorded is not null then 'unchanged'
                              when m.same is null then 'new'
                              when exists (select from beliefdb.evidence e
                                            where e.workspace_id = p_workspace_id and e.belief_id = m.same
                                              and e.fragment_id = c.fragment_id) then 'unchanged'
                              else 'corroborated' end,
               belief_id = coalesce(m.recorded, m.same,
                                    encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(4) || int4send(c.n) || int4send(c.ord))
                                                   from 1 for 16) placing v_prefix from 1 for 1)
                                                                  placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid),
               justification_id = encode(overlay(overlay(overlay(substring(sha256(v_seed || int4send(5) || int4send(c.n) || int4send(c.ord))
                                                 from 1 for 16) placing v_prefix from 1 for 1)
                                                                placing '\x40'::bytea from 7 for 1) placing '\x80'::bytea from 9 for 1), 'hex')::uuid
          from (select t.n, t.ord,
                       (select b.id
                          from beliefdb.evidence e
                          join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                         where e.workspace_id = p_workspace_id and e.fragment_id = t.fragment_id
                           and b.subject = t.subject and b.attribute = t.attribute
                           and b.value = t.claim ->> 'value' and b.scope = t.claim -> 'scope'
                           and b.valid_time = t.valid and b.provenance = v_world
                         limit 1) as recorded,
                       (select b.id
                          from beliefdb.belief b
                         where b.workspace_id = p_workspace_id
                           and b.subject = t.subject and b.attribute = t.attribute
                           and b.value = t.claim ->> 'value' and b.scope = t.claim -> 'scope'
                           and b.valid_time = t.valid and b.provenance = v_world
                           and (b.status::text in ('current', 'conflicting', 'expired')
                                -- (or, in a document, the belief an earlier claim of it made or
                                -- corroborated, also superseded since: one belief, as _add_claims)
                                or (b.status = 'superseded' and coalesce(p_origin, 'document') <> 'conversation'
                                    and b.id in (select o.belief_id from pg_temp.beliefdb_bulk_first_claim o
                                                  where o.n = t.n and o.round < v_round
                                                    and o.outcome in ('new', 'corroborated'))))
                         order by b.status = 'superseded', b.recorded_at, b.id
                         limit 1) as same
                  from pg_temp.beliefdb_bulk_first_claim t
                 where t.round = v_round and t.outcome is null) m
         where m.n = c.n and m.ord = c.ord;
        -- (held by its justification, as above; its adjacency self row too)
        perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' node', true);
        with came as (
            insert into beliefdb.node (workspace_id, id, kind, holds, current, created_at, support, support_rank)
            select p_workspace_id, c.belief_id, 'belief', true, true, f.at, c.justification_id, 0
              from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
             where c.round = v_round and c.outcome = 'new'
            returning workspace_id, id, kind, holds, current, retracted_at)
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, kind, holds, current, retracted,
                                        related)
        select c.workspace_id, c.id, 'self', c.id, c.kind, c.holds, c.current, c.retracted_at is not null, false
          from came c;
        perform pg_catalog.set_config('beliefdb.adjacency_noted', '', true);
        insert into pg_temp.beliefdb_changes (id, kind, held, was_current, created)
        select c.belief_id, 'belief', false, false, true from pg_temp.beliefdb_bulk_first_claim c
         where c.round = v_round and c.outcome = 'new'
        on conflict (id) do nothing;
        perform pg_catalog.set_config('beliefdb.nodes_noted', pg_catalog.now()::text, true);
        perform pg_catalog.set_config('beliefdb.owner_stamped', pg_catalog.now()::text || ' ' || v_owner, true);
        insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, kind, scope,
                                     valid_time, recorded_at, provenance, confidence_kind, owner, confidence)
        select p_workspace_id, c.belief_id, c.claim ->> 'statement', c.subject, c.attribute, c.claim ->> 'value',
               c.claim ->> 'kind', c.claim -> 'scope', c.valid, f.at, v_world, 'extracted', v_owner, v_confidence
          from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
         where c.round = v_round and c.outcome = 'new'
         order by c.n, c.ord;
        perform pg_catalog.set_config('beliefdb.nodes_noted', '', true);
        perform pg_catalog.set_config('beliefdb.owner_stamped', '', true);
        -- (and the adjacency rows of the justifications and edges, as above: the out row of an edge
        -- into a corroborated belief carries no support, which is an older justification of the belief)
        perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' justification', true);
        with came as (
            insert into beliefdb.justification (workspace_id, id, consequent, created_at)
            select p_workspace_id, c.justification_id, c.belief_id, f.at
              from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
             where c.round = v_round and c.outcome in ('new', 'corroborated')
            returning workspace_id, id, consequent, unmet)
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, unmet)
        select c.workspace_id, c.consequent, 'in', c.id, c.unmet from came c;
        perform pg_catalog.set_config('beliefdb.edges_noted', pg_catalog.now()::text, true);
        perform pg_catalog.set_config('beliefdb.adjacency_noted', pg_catalog.now()::text || ' justification_antecedent',
                                      true);
        insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind, consequent)
        select p_workspace_id, c.justification_id, c.fragment_id, 'evidence', c.belief_id
          from pg_temp.beliefdb_bulk_first_claim c where c.round = v_round and c.outcome in ('new', 'corroborated');
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, support, into_decision)
        select p_workspace_id, c.fragment_id, 'out', c.justification_id, c.belief_id,
               case when c.outcome = 'new' then true end, false
          from pg_temp.beliefdb_bulk_first_claim c where c.round = v_round and c.outcome in ('new', 'corroborated');
        perform pg_catalog.set_config('beliefdb.edges_noted', '', true);
        perform pg_catalog.set_config('beliefdb.adjacency_noted', '', true);
        insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id, created_at)
        select p_workspace_id, c.belief_id, c.fragment_id, c.actual, 'supports', c.justification_id, f.at
          from pg_temp.beliefdb_bulk_first_claim c join pg_temp.beliefdb_bulk_first f on f.n = c.n
         where c.round = v_round and c.outcome in ('new', 'corroborated');
        -- rule 8 for the new beliefs and the corroborated ones (new support can change the rank), in
        -- order (_bulk_settle)
        truncate pg_temp.beliefdb_bulk_due;
        insert into pg_temp.beliefdb_bulk_due (n, ord, belief_id, outcome)
        select c.n, c.ord, c.belief_id, c.outcome from pg_temp.beliefdb_bulk_first_claim c
         where c.round = v_round and c.outcome in ('new', 'corroborated') and not c.repeats
           and exists (select from beliefdb.belief b
                        where b.workspace_id = p_workspace_id and b.subject = c.subject
                          and b.attribute = c.attribute and b.id <> c.belief_id
                       offset 0);
        v_seeds := v_seeds || beliefdb._bulk_settle(p_workspace_id, v_owner, true);
    end loop;
    perform pg_catalog.set_config('beliefdb.batch_clock', '', true);
    v_fresh := beliefdb.clock() < v_base + interval '1 day';

    -- one propagation: the beliefs the claims made, corroborated or repeated, and what they
    -- settled (the new fragments hold and are current as stored: premises of versions in force,
    -- with nothing before them to walk from). A new belief with no rival (the only claim of the
    -- run on its subject and attribute, which no other belief has) is stored as the propagation
    -- would leave it: it holds by its justification at rank 0, current, nothing rests on it, no
    -- rule 8 question, and its confidence is the one stored, while the clock is within a day of
    -- the run (recency 1): it is no seed then, where evaluating, ranking and computing the
    -- confidence of every new belief again took a second of a batch at a million. One whose valid
    -- time has ended is a seed all the same (propagate adds beliefdb.due_to_expire).
    v_seeds := v_seeds || array(select c.belief_id from pg_temp.beliefdb_bulk_first_claim c
                                 where c.belief_id is not null
                                   and not (c.eligible and not c.rival and v_fresh));
    v_changes := beliefdb.propagate(p_workspace_id, v_seeds);

    -- the reports, in order, each as _ingest_version_core's; the last with the run's changes
    v_reports := array(
        select jsonb_build_object(
                   'source', d.source, 'source_id', f.source_id, 'version', 1, 'version_id', f.version_id,
                   'new_version', true, 'fragments', f.fragments, 'reverified', '[]'::jsonb, 'proposed', false,
                   'note', null, 'superseded', f.superseded, 'conflicts', f.conflicts,
                   'accepted', coalesce(r.accepted, '[]'),
                   'rejected', d.rejected || coalesce(r.rejected, '[]'),
                   'corroborated', coalesce(r.corroborated, '[]'), 'unchanged', coalesce(r.unchanged, '[]'),
                   'unsupported', '[]'::jsonb, 'flagged', '[]'::jsonb, 'held', '[]'::jsonb,
                   'changes', beliefdb._empty_changes())
          from pg_temp.beliefdb_bulk_first f
          join pg_temp.beliefdb_bulk_document d on d.n = f.n
          left join (select c.n,
                            jsonb_agg(jsonb_build_object(
                                'id', c.belief_id, 'statement', c.claim ->> 'statement', 'subject', c.subject,
                                'attribute', c.attribute, 'value', c.claim ->> 'value', 'quote', c.claim ->> 'quote',
                                'start', c.s, 'end', c.e) order by c.ord)
                                filter (where c.eligible or c.outcome = 'new') as accepted,
                            jsonb_agg(jsonb_build_object(
                                'statement', c.claim ->> 'statement', 'quote', c.claim ->> 'quote',
                                'reason', 'quote is not the source text at the given offsets') order by c.ord)
                                filter (where c.outcome = 'rejected') as rejected,
                            jsonb_agg(jsonb_build_object(
                                'id', c.belief_id, 'statement', c.claim ->> 'statement', 'quote', c.claim ->> 'quote',
                                'start', c.s, 'end', c.e) order by c.ord)
                                filter (where c.outcome = 'corroborated') as corroborated,
                            jsonb_agg(jsonb_build_object('id', c.belief_id, 'statement', c.claim ->> 'statement')
                                      order by c.ord) filter (where c.outcome = 'unchanged') as unchanged
                       from pg_temp.beliefdb_bulk_first_claim c group by c.n) r on r.n = f.n
         order by f.n);
    v_reports[cardinality(v_reports)] := beliefdb._ingest_report(p_workspace_id, v_reports[cardinality(v_reports)], v_changes);
    return v_reports;
end
$$;
comment on function beliefdb._bulk_first_versions(uuid, integer[], beliefdb.origin_type, beliefdb.authority, beliefdb.provenance)
    is 'Store a run of staged documents that each start a new source, set-based, as one by one would; jsonb: one ingest report each, in order';

-- A bulk batch comes to its next document (or run of new sources): the time it is recorded at
-- (beliefdb.batch_clock, now, as one by one), and what expired by then processed as a change of its
-- own, as at a writer's lock (rule 16): an expire event with its rows' own events, not counted into
-- the batch's, and in no document's report. An index probe when nothing is due.
create or replace function beliefdb._bulk_expire_due(p_workspace_id uuid) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    perform pg_catalog.set_config('beliefdb.batch_clock', pg_catalog.clock_timestamp()::text, true);
    if cardinality(beliefdb.due_to_expire(p_workspace_id)) > 0 then
        perform pg_catalog.set_config('beliefdb.audit_batch', '', true);
        perform beliefdb._expire_due(p_workspace_id);
        perform pg_catalog.set_config('beliefdb.audit_batch', p_workspace_id::text, true);
    end if;
end
$$;
comment on function beliefdb._bulk_expire_due(uuid)
    is 'Date a bulk batch''s next document or run now and process what expired by then, as a change of its own (rule 16)';
