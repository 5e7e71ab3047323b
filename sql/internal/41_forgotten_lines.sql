-- beliefdb: forgotten words that come back (docs/rules.md, rule 14).
-- A span forget masks remembers the line it lay in: the line's offset and length in its version, and a
-- keyed digest of the line's words as they were (beliefdb.redaction.line_digest, under the workspace's
-- secret key: a list of sentences does not reverse it). A line of a later text of the same source that
-- is that line again, word for word (a chat cut at its end, forgotten in, then ingested whole again; a
-- document back at an earlier text), has the same spans masked where it is stored. Words nobody forgot
-- are never masked: another speaker's turn, or the same speaker's other words, are another line. A line
-- is what lies between two line breaks, without a carriage return before its break (a text with CRLF
-- breaks has the lines of the same text with LF breaks); a span over several lines is one piece a line.
-- A text still queued when a forget masks it (a job's document, not a version yet) keeps the same record
-- with the job, keyed by its source's name (the job's payload: forgotten_lines, each piece's offsets, its
-- line and the line's digest as hex, beliefdb._masked_job): the same line ingested into that source while
-- the job waits is masked again, and the version the worker stores from the job records them as
-- redaction rows (beliefdb._job_lines_stored, by job_finish), which the done job then drops with its text.

-- The lines of a text: their number, where each starts (character offsets, the first 0) and how long
-- it is (its break and a carriage return before it not counted), in one pass.
create or replace function beliefdb._lines(p_text text)
returns table (k integer, line_start integer, line_length integer)
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select t.k::integer,
           (coalesce(sum(length(t.l) + 1) over (order by t.k rows between unbounded preceding and 1 preceding), 0))::integer,
           length(t.l) - (right(t.l, 1) = E'\r')::integer
      from unnest(string_to_array(p_text, E'\n')) with ordinality as t (l, k)
$$;
comment on function beliefdb._lines(text) is 'The lines of a text: number, start offset and length (without its break and a carriage return before it)';

-- Each span of a text cut into one piece a line it crosses (a piece of a line keeps the line's break
-- and carriage return, if the span covers them), each with its line's start and length
-- (beliefdb._lines). The lines of each span found by a binary search of their starts (width_bucket),
-- the text read once. In the order of the spans given, then of the text.
create or replace function beliefdb._line_units(p_text text, p_spans int4range[])
returns table (span int4range, line_start integer, line_length integer)
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    with l as (
        select array_agg(t.line_start order by t.k) as starts, array_agg(t.line_length order by t.k) as lengths
          from beliefdb._lines(p_text) t
    )
    select p.piece, l.starts[p.i], l.lengths[p.i]
      from l
     cross join unnest(p_spans) with ordinality as x (span, n)
     cross join lateral generate_series(width_bucket(lower(x.span), l.starts),
                                        width_bucket(greatest(upper(x.span) - 1, lower(x.span)), l.starts)) as g (i)
     cross join lateral (select g.i, x.span * int4range(l.starts[g.i], coalesce(l.starts[g.i + 1], length(p_text) + 1))
                                  as piece) p
     where not isempty(p.piece)
     order by x.n, p.i
$$;
comment on function beliefdb._line_units(text, int4range[]) is 'Spans of a text cut at line breaks, each piece with its line (offset, length)';

-- The keyed digest of a line's words: HMAC-SHA-256 under the workspace's key, given as its two padded
-- keys (beliefdb._hmac_pads, made once for many lines), of the words after 'line' and a unit separator,
-- so that no other digest under the same key is ever a line's. What is recorded of a masked line is this
-- digest keyed again to its source (beliefdb._source_line_digest).
create or replace function beliefdb._line_digest(p_pads bytea[], p_words text) returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._hmac(p_pads, convert_to('line' || chr(31) || p_words, 'UTF8'))
$$;
comment on function beliefdb._line_digest(bytea[], text) is 'The keyed digest of a line''s words (HMAC-SHA-256 under padded keys, separated from names'' digests)';

-- What is recorded of a masked line of a source's text (beliefdb.redaction.line_digest, a waiting text's
-- forgotten_lines) and compared with a candidate line of a later text of it: the line's digest
-- (beliefdb._line_digest) keyed again, with the source's name (revision 0050). A line is recognised only
-- in texts of its own source; keyed by the workspace alone, anyone who may write there could forget a
-- guessed line of their own and compare its digest with another source's (a redaction row is readable).
create or replace function beliefdb._source_line_digest(p_pads bytea[], p_source text, p_words text) returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._hmac(p_pads, convert_to('source' || chr(31) || p_source || chr(31), 'UTF8')
                                  || beliefdb._line_digest(p_pads, p_words))
$$;
comment on function beliefdb._source_line_digest(bytea[], text, text) is 'What is recorded of a masked line: its keyed digest keyed again with its source''s name';

-- A source's name (a proposal's lines are keyed with its source's: beliefdb._source_line_digest).
create or replace function beliefdb._source_name(p_workspace_id uuid, p_source_id uuid) returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select s.name from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_source_id
$$;
comment on function beliefdb._source_name(uuid, uuid) is 'A source''s name by its id';

-- What is recorded of a masked line, the digest (beliefdb._source_line_digest) keyed again with a random
-- salt recorded beside it (revision 0050; a record made before has none): a digest recorded of the
-- same words elsewhere, where anyone may have had a guess of theirs forgotten, is never the same.
-- A candidate line is compared with each record under that record's salt.
create or replace function beliefdb._salted_line_digest(p_pads bytea[], p_salt bytea, p_digest bytea) returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when p_salt is null then p_digest
                else beliefdb._hmac(p_pads, convert_to('salted' || chr(31), 'UTF8') || p_salt || p_digest) end
$$;
comment on function beliefdb._salted_line_digest(bytea[], bytea, bytea) is 'A masked line''s recorded digest: its source''s line digest keyed again with a random salt (none: as it is)';

-- (a random salt for a masked line's record: beliefdb._salt)
drop function if exists beliefdb._line_salt();

-- Whether a masked piece's record in a text waiting to be stored (a job's or a proposal's
-- forgotten_lines) masks its line in the other texts of its source (owned by p_owner, now): when the
-- forget that made it was the owner's (the record's `by`, beliefdb._forgotten_records), an eraser's, or
-- made before records said who made them. A principal's masking of a text they queued for a source they
-- do not own was their call over their own text, and masks nothing of the owner's (rule 17), whose later
-- texts would otherwise come out masked for good; nor does one made while another owned the source
-- (forgotten since, and stored again by the job's submitter).
create or replace function beliefdb._record_masks(p_record jsonb, p_owner text) returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select not p_record ? 'by' or p_record ->> 'by' is not distinct from p_owner
$$;
comment on function beliefdb._record_masks(jsonb, text) is 'Whether a waiting text''s masked piece masks its line in the other texts of its source: made by its owner now, an eraser, or before pieces said who made them';

-- The spans of p_text, in its lines that start after offset p_from (every line: 0), that a forget
-- masked in a version of source p_source_id, or in a text of it still waiting in the queue (a job's
-- forgotten_lines: beliefdb._masked_job), or in a text proposed for it (the proposal's forgotten_lines,
-- whatever became of the proposal): each line of p_text whose words are a masked line's as they
-- were (the same length and keyed digest) has that line's spans masked at the same places in it (within
-- the line and its break). In text order; none (at the cost of one probe of the source's versions, one
-- of its waiting jobs and one of its proposals) when nothing of it was forgotten. Not for a text another principal proposes
-- (that would tell them which words were forgotten): the owner's approval masks it
-- (beliefdb._forgotten_proposal).
create or replace function beliefdb._forgotten_lines(p_workspace_id uuid, p_source_id uuid, p_text text,
                                                     p_from integer default 0)
returns int4range[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    -- (the text from p_from on, read alone: a turn appended to a long chat reads only its own lines)
    v_tail text := substr(p_text, greatest(p_from, 0) + 1);
    v_from integer := greatest(p_from, 0);
    v_at integer[];
    v_length integer[];
    v_extent integer[];
    v_pads bytea[];
    -- (the masked pieces recorded, read once: line length, digest, line start, span)
    v_r_length integer[];
    v_r_digest bytea[];
    v_r_line integer[];
    v_r_start integer[];
    v_r_end integer[];
    v_r_salt bytea[];
    v_source text;
begin
    select array_agg(r.line_length), array_agg(r.line_digest), array_agg(r.line_start),
           array_agg(r.start_offset), array_agg(r.end_offset), array_agg(r.line_salt)
      into v_r_length, v_r_digest, v_r_line, v_r_start, v_r_end, v_r_salt
      from (select r.line_length, r.line_digest, r.line_start, r.start_offset, r.end_offset, r.line_salt
              from beliefdb.source_version v
              join beliefdb.redaction r on r.workspace_id = v.workspace_id and r.source_version_id = v.id
             where v.workspace_id = p_workspace_id and v.source_id = p_source_id and r.line_digest is not null
            union all
            -- (a job of the source still waiting, its text masked by a forget before any version held it;
            -- a done job's lines are its version's redaction rows, or its proposal's)
            select (x ->> 'line_length')::integer, decode(x ->> 'digest', 'hex'), (x ->> 'line_start')::integer,
                   (x ->> 'start')::integer, (x ->> 'end')::integer, decode(x ->> 'salt', 'hex')
              from beliefdb.source s
              join beliefdb.job j on j.workspace_id = s.workspace_id and j.payload ->> 'source' = s.name
             cross join lateral jsonb_array_elements(j.payload -> 'forgotten_lines') x
             where s.workspace_id = p_workspace_id and s.id = p_source_id
               and j.status in ('queued', 'running', 'failed') and j.payload ? 'forgotten_lines'
               and beliefdb._record_masks(x, s.owner)
            union all
            -- (a version proposed for the source, its text masked by a forget: open, or resolved and
            -- not stored, or stored where its pieces could not be recorded; review_item_source)
            select (x ->> 'line_length')::integer, decode(x ->> 'digest', 'hex'), (x ->> 'line_start')::integer,
                   (x ->> 'start')::integer, (x ->> 'end')::integer, decode(x ->> 'salt', 'hex')
              from beliefdb.review_item p
              join beliefdb.source s on s.workspace_id = p.workspace_id and s.id = p.source_id
             cross join lateral jsonb_array_elements(p.proposal -> 'forgotten_lines') x
             where p.source_id = p_source_id and p.workspace_id = p_workspace_id and p.kind = 'version_proposed'
               and jsonb_typeof(p.proposal -> 'forgotten_lines') = 'array'
               and beliefdb._record_masks(x, s.owner)) r;
    if v_r_length is null or p_text is null then
        return '{}';
    end if;
    -- (the candidates: a line as long as a masked line was; a line of the text before p_from, whose end
    -- the tail begins with, is none of them; each with its extent, its break included)
    with l as (
        select t.line_start, t.line_length,
               coalesce(lead(t.line_start) over (order by t.k), length(v_tail)) - t.line_start as extent
          from beliefdb._lines(v_tail) t
    )
    select coalesce(array_agg(l.line_start order by l.line_start), '{}'),
           coalesce(array_agg(l.line_length order by l.line_start), '{}'),
           coalesce(array_agg(l.extent order by l.line_start), '{}')
      into v_at, v_length, v_extent
      from l
     where l.line_length = any (v_r_length) and (l.line_start > 0 or v_from = 0);
    if cardinality(v_at) = 0 then
        return '{}';
    end if;
    v_pads := beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id));
    select s.name into v_source from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_source_id;
    return (
        select coalesce(array_agg(distinct int4range(v_from + c.s + lower(m.rel), v_from + c.s + upper(m.rel))), '{}')
          from unnest(v_at, v_length, v_extent,
                      beliefdb._slices(v_tail, v_at, array(select x.s + x.n from unnest(v_at, v_length) x (s, n))))
               as c (s, n, extent, words)
         cross join lateral (select beliefdb._source_line_digest(v_pads, v_source, c.words) as digest) d
          join unnest(v_r_length, v_r_digest, v_r_line, v_r_start, v_r_end, v_r_salt)
               as r (line_length, line_digest, line_start, start_offset, end_offset, line_salt)
            on r.line_length = c.n and r.line_digest = beliefdb._salted_line_digest(v_pads, r.line_salt, d.digest)
         cross join lateral (select int4range(r.start_offset - r.line_start, r.end_offset - r.line_start)
                                    * int4range(0, c.extent + 1) as rel) m
         where not isempty(m.rel));
end
$$;
comment on function beliefdb._forgotten_lines(uuid, uuid, text, integer) is 'The spans of a text masked before in lines of its source (its versions, its waiting jobs, its proposals) that it repeats word for word';

-- The record of the pieces of a text (a queued job's, a proposed version's) a forget masks at some
-- spans (p_masks), after those recorded before (p_recorded): each piece's start, end, line_start,
-- line_length and the digest, as hex, of the line's words before they were masked (as
-- beliefdb._redact_spans records a version's; a line masked before keeps the digest it was given then).
-- The text is no version yet, so the record goes with it, for beliefdb._forgotten_lines and for the
-- version stored from it (beliefdb._lines_recorded).
-- (p_source: the name of the text's source, which its lines' digests are keyed with)
-- Each new piece says who made it (`by`: the acting principal; none for an eraser's forget, which masks
-- whoever owns the source), for beliefdb._record_masks.
drop function if exists beliefdb._forgotten_records(uuid, text, jsonb, int4range[]);
-- (a signature that lived for one commit, bb9974c, before every piece said who made it)
drop function if exists beliefdb._forgotten_records(uuid, text, jsonb, int4range[], text, text);
create or replace function beliefdb._forgotten_records(p_workspace_id uuid, p_text text, p_recorded jsonb,
                                                       p_masks int4range[], p_source text)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_pieces int4range[];
    v_starts integer[];
    v_lengths integer[];
    v_recorded jsonb;
    v_by text := case when not beliefdb._is_eraser() then beliefdb.current_principal() end;
begin
    if p_text is null or coalesce(cardinality(p_masks), 0) = 0 then
        return coalesce(p_recorded, '[]');
    end if;
    select array_agg(u.span), array_agg(u.line_start), array_agg(u.line_length)
      into v_pieces, v_starts, v_lengths
      from beliefdb._line_units(p_text, p_masks) u;
    with o as (
        select distinct on ((x ->> 'line_start')::integer, (x ->> 'line_length')::integer)
               (x ->> 'line_start')::integer as s, (x ->> 'line_length')::integer as n, x ->> 'digest' as digest,
               x ->> 'salt' as salt
          from jsonb_array_elements(coalesce(p_recorded, '[]')) x
    ), p as (
        select beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id)) as pads
    ), l as (
        -- (a line masked before keeps its digest and salt; a new one has a salt of its own)
        select x.span, x.s, x.n, x.words, o.digest,
               case when o.digest is null then encode(beliefdb._salt(), 'hex') else o.salt end as salt
          from unnest(v_pieces, v_starts, v_lengths,
                      beliefdb._slices(p_text, v_starts, array(select a + b from unnest(v_starts, v_lengths) t (a, b))))
               as x (span, s, n, words)
          left join o on o.s = x.s and o.n = x.n
         where x.n > 0
    )
    select coalesce(jsonb_agg(jsonb_build_object(
               'start', lower(l.span), 'end', upper(l.span), 'line_start', l.s, 'line_length', l.n,
               'digest', coalesce(l.digest, encode(beliefdb._salted_line_digest(
                                      p.pads, decode(l.salt, 'hex'), beliefdb._source_line_digest(p.pads, p_source, l.words)),
                                  'hex'))) || case when l.salt is null then '{}'::jsonb
                                                    else jsonb_build_object('salt', l.salt) end
                   -- (a piece's own: who masked it)
                   || case when v_by is null then '{}'::jsonb else jsonb_build_object('by', v_by) end
               order by lower(l.span)), '[]')
      into v_recorded
      from p, l;
    return coalesce(p_recorded, '[]') || v_recorded;
end
$$;
comment on function beliefdb._forgotten_records(uuid, text, jsonb, int4range[], text) is 'The pieces of a text a forget masks at some spans, each with its line''s keyed digest, after those recorded before';

-- A queued job's payload with its text masked at some spans (a forget's, p_masks) and each masked piece
-- recorded with the job (forgotten_lines, beliefdb._forgotten_records), keyed by the source's name
-- (payload.source), for beliefdb._forgotten_lines and for the version the worker stores from it
-- (beliefdb._job_lines_stored). The payload as given when nothing is masked.
-- (a signature that lived for one commit, bb9974c, before every piece said who made it)
drop function if exists beliefdb._masked_job(uuid, jsonb, int4range[], text);
create or replace function beliefdb._masked_job(p_workspace_id uuid, p_payload jsonb, p_masks int4range[])
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_payload ->> 'text' is null or coalesce(cardinality(p_masks), 0) = 0 then
        return p_payload;
    end if;
    return p_payload || jsonb_build_object(
        'text', beliefdb._masked(p_payload ->> 'text', p_masks),
        'forgotten_lines', beliefdb._forgotten_records(p_workspace_id, p_payload ->> 'text',
                                                       p_payload -> 'forgotten_lines', p_masks,
                                                       p_payload ->> 'source'));
end
$$;
comment on function beliefdb._masked_job(uuid, jsonb, int4range[]) is 'A queued job''s payload with its text masked at some spans and their lines'' keyed digests recorded with it';

-- The reason recorded with a job whose text a forget masks (rule 14 of docs/rules.md): a failed attempt's
-- reason may quote the text (an llm endpoint's refusal often says why with the words it was sent), so it
-- is replaced, as forgetting a source replaces the reasons of its jobs (beliefdb._forget_jobs); none
-- stays none.
create or replace function beliefdb._masked_job_error(p_error text) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when p_error is not null
                then 'a forget masked its text: the reason recorded before, which may have quoted it, was cleared' end
$$;
comment on function beliefdb._masked_job_error(text) is 'The reason kept with a job whose text a forget masked: replaced, as it may quote the text';

-- The pieces a forget masked in a text not stored yet (p_lines, as beliefdb._forgotten_records records
-- them over p_text: a job's, a proposal's), recorded as redaction rows of the version stored from it
-- (p_version_id: a new version of that text, or the conversation it grew, or the text in force it
-- repeated): each piece where that version's text is p_text, and not recorded there yet. So the version
-- remembers them as if the forget had come after it was stored (rule 14): the same line back in the
-- source is masked again, and the same text again is the text in force. The pieces it could not record
-- there (that version's text is not p_text at their place, or they mask nothing of its owner's:
-- beliefdb._record_masks), as given.
create or replace function beliefdb._lines_recorded(p_workspace_id uuid, p_version_id uuid, p_text text,
                                                    p_lines jsonb, p_reason text)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text;
    v_owner text;
    v_left jsonb;
begin
    if jsonb_typeof(p_lines) is distinct from 'array' or p_text is null then
        return '[]';
    end if;
    select v.content, s.owner into v_content, v_owner
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_version_id;
    if v_content is null then
        return p_lines;
    end if;
    with x as (
        select distinct (f ->> 'start')::integer as s, (f ->> 'end')::integer as e,
               (f ->> 'line_start')::integer as ls, (f ->> 'line_length')::integer as ln,
               decode(f ->> 'digest', 'hex') as digest, decode(f ->> 'salt', 'hex') as salt, f
          from jsonb_array_elements(p_lines) f
    ), fits as (
        select x.*, x.e > x.s and x.e <= length(v_content)
                    and substr(v_content, x.s + 1, x.e - x.s) = substr(p_text, x.s + 1, x.e - x.s)
                    and beliefdb._record_masks(x.f, v_owner) as fit
          from x
    ), recorded as (
        insert into beliefdb.redaction (workspace_id, source_version_id, start_offset, end_offset, reason,
                                        line_start, line_length, line_digest, line_salt)
        select p_workspace_id, p_version_id, f.s, f.e, p_reason, f.ls, f.ln, f.digest, f.salt
          from fits f
         where f.fit
           and not exists (select from beliefdb.redaction r
                            where r.workspace_id = p_workspace_id and r.source_version_id = p_version_id
                              and r.start_offset = f.s and r.end_offset = f.e)
    )
    select coalesce(jsonb_agg(f.f order by f.s), '[]') into v_left from fits f where not f.fit;
    return v_left;
end
$$;
comment on function beliefdb._lines_recorded(uuid, uuid, text, jsonb, text) is 'Record the pieces a forget masked in a text not stored yet as redaction rows of the version stored from it; those it could not';

-- The pieces a forget masked in a job's text (p_payload's forgotten_lines, beliefdb._masked_job), kept
-- by what the job's ingest made (p_result, as the worker reports it): recorded as redaction rows of the
-- version it stored (beliefdb._lines_recorded); or, when its ingest only proposed the text to the
-- source's owner (the submitter does not own it: no version), carried into that proposal's
-- forgotten_lines (the open version proposal of the source by the job's principal whose text is the
-- job's; each piece where its text is the job's, not there yet), so that the version the owner's
-- approval stores records them as well, and the owner's text of the source is masked until then.
-- Called by job_finish.
create or replace function beliefdb._job_lines_stored(p_workspace_id uuid, p_payload jsonb, p_result jsonb)
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version uuid;
begin
    if jsonb_typeof(p_payload -> 'forgotten_lines') is distinct from 'array' or p_payload ->> 'text' is null then
        return;
    end if;
    if p_result ->> 'version' is null then
        update beliefdb.review_item r
           set proposal = r.proposal || jsonb_build_object('forgotten_lines', (
                   select coalesce(r.proposal -> 'forgotten_lines', '[]') || coalesce(jsonb_agg(f), '[]')
                     from jsonb_array_elements(p_payload -> 'forgotten_lines') f
                    where not coalesce(r.proposal -> 'forgotten_lines', '[]') @> jsonb_build_array(f)))
          from beliefdb.source s
         where s.workspace_id = p_workspace_id and s.name = p_payload ->> 'source'
           and r.workspace_id = p_workspace_id and r.source_id = s.id and r.kind = 'version_proposed'
           and r.status = 'open' and r.proposed_by is not distinct from beliefdb.current_principal()
           and r.proposal ->> 'content' = p_payload ->> 'text';
        return;
    end if;
    select v.id into v_version
      from beliefdb.source s
      join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
     where s.workspace_id = p_workspace_id and s.name = p_payload ->> 'source'
       and v.version = (p_result ->> 'version')::integer;
    if v_version is null then
        return;
    end if;
    perform beliefdb._lines_recorded(p_workspace_id, v_version, p_payload ->> 'text', p_payload -> 'forgotten_lines',
                                     'forgotten while its text was queued');
end
$$;
comment on function beliefdb._job_lines_stored(uuid, jsonb, jsonb) is 'Record the pieces a forget masked in a job''s text as redaction rows of the version stored, or with the proposal its ingest made';

-- The labels of the turns given with a text (p_fragments: start, end, speaker) that some spans of it may
-- touch (p_spans): each turn whose label stretch (from its line's start, within the 260 characters a
-- label may take, to the turn) a span overlaps, with the last occurrence of its speaker there, its
-- label. By its number among the turns (n), its span and speaker. The heads of those turns read in one
-- pass (beliefdb._slices: a substr of each was quadratic in a long text). What beliefdb._forgotten_turns
-- and beliefdb._masked_labels read.
create or replace function beliefdb._turn_labels(p_text text, p_fragments jsonb, p_spans int4range[])
returns table (n bigint, turn int4range, speaker text, label int4range)
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_spans int4multirange := (select coalesce(range_agg(x.span), '{}'::int4multirange) from unnest(p_spans) as x (span));
    v_n bigint[];
    v_turn int4range[];
    v_speaker text[];
    v_heads text[];
    v_line text;
    v_at integer;
begin
    if jsonb_typeof(p_fragments) is distinct from 'array' or coalesce(cardinality(p_spans), 0) = 0 then
        return;
    end if;
    select coalesce(array_agg(x.n order by x.n), '{}'),
           coalesce(array_agg(int4range((x.f ->> 'start')::integer, (x.f ->> 'end')::integer) order by x.n), '{}'),
           coalesce(array_agg(x.f ->> 'speaker' order by x.n), '{}')
      into v_n, v_turn, v_speaker
      from jsonb_array_elements(p_fragments) with ordinality as x (f, n)
     where nullif(x.f ->> 'speaker', '') is not null and (x.f ->> 'start')::integer > 0
       and (x.f ->> 'start')::integer < (x.f ->> 'end')::integer
       and int4range(greatest((x.f ->> 'start')::integer - 260, 0), (x.f ->> 'start')::integer) && v_spans;
    v_heads := beliefdb._slices(p_text, array(select greatest(lower(t) - 260, 0) from unnest(v_turn) t),
                                array(select lower(t) from unnest(v_turn) t));
    for v_i in 1 .. cardinality(v_n) loop
        v_line := coalesce(right(v_heads[v_i], nullif(strpos(reverse(v_heads[v_i]), E'\n'), 0) - 1), v_heads[v_i]);
        select o into label from unnest(beliefdb._occurrences(v_line, array[v_speaker[v_i]])) o
         order by lower(o) desc limit 1;
        continue when label is null;
        v_at := lower(v_turn[v_i]) - length(v_line);
        n := v_n[v_i];
        turn := v_turn[v_i];
        speaker := v_speaker[v_i];
        label := int4range(v_at + lower(label), v_at + upper(label));
        return next;
    end loop;
end
$$;
comment on function beliefdb._turn_labels(text, jsonb, int4range[]) is 'The labels (the speaker''s last occurrence on the line before each turn) of the turns some spans may touch';

-- Of the turns given with a text (p_fragments: start, end, speaker), the spans of those a forget took
-- out of it (p_spans, masked there): a turn masked whole whose speaker's name is masked in the line
-- that labels it (beliefdb._turn_labels) is a forgotten speaker's, not a turn again; a turn whose words
-- alone are masked (a forgotten belief quoted them whole) stays its speaker's, masked.
create or replace function beliefdb._forgotten_turns(p_text text, p_fragments jsonb, p_spans int4range[])
returns int4range[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(l.turn order by l.turn), '{}')
      from (select coalesce(range_agg(x.span), '{}'::int4multirange) as spans from unnest(p_spans) as x (span)) m,
           beliefdb._turn_labels(p_text, p_fragments, p_spans) l
     where l.turn <@ m.spans and l.label && m.spans
$$;
comment on function beliefdb._forgotten_turns(text, jsonb, int4range[]) is 'Of the turns given with a text, those a forget took out of it: masked whole, their speaker''s name masked in their label';

-- The turns given with a text (p_fragments) with each speaker masked as the line that labels its turn
-- masks it (p_spans over the text, beliefdb._turn_labels): a name forget masked in a speaker's label
-- ("████'s phone:", with mask_mentions) is masked in the turn's speaker too, as forget masks the stored
-- turns' speakers.
create or replace function beliefdb._masked_labels(p_text text, p_fragments jsonb, p_spans int4range[])
returns jsonb
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_spans int4multirange := (select coalesce(range_agg(x.span), '{}'::int4multirange) from unnest(p_spans) as x (span));
    v_label record;
    v_masked jsonb := p_fragments;
begin
    for v_label in select * from beliefdb._turn_labels(p_text, p_fragments, p_spans) l where l.label && v_spans loop
        v_masked := jsonb_set(v_masked, array[(v_label.n - 1)::text, 'speaker'], to_jsonb(beliefdb._masked(
            v_label.speaker, array(select int4range(lower(s) - lower(v_label.label), upper(s) - lower(v_label.label))
                                     from unnest(v_spans * int4multirange(v_label.label)) s))));
    end loop;
    return v_masked;
end
$$;
comment on function beliefdb._masked_labels(text, jsonb, int4range[]) is 'Turns with each speaker masked where the line that labels the turn is masked';

-- A text proposed for a source (p_text as the proposal keeps it: content, claims, fragments, rejected)
-- masked where it repeats a line forgotten in a version of the source (beliefdb._forgotten_lines),
-- without its claims over those words and a forgotten speaker's turns: what the review history keeps
-- once the owner approved it (the version stored from it masks them the same way). Until then it is
-- kept as given, and its proposer is told nothing of what was forgotten. The text as given when
-- nothing in it was forgotten.
create or replace function beliefdb._forgotten_proposal(p_workspace_id uuid, p_source_id uuid, p_text jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_masks int4range[] := beliefdb._forgotten_lines(p_workspace_id, p_source_id, p_text ->> 'content');
    v_spans int4multirange;
    v_gone int4range[];
begin
    if cardinality(v_masks) = 0 then
        return p_text;
    end if;
    v_spans := (select range_agg(x.span) from unnest(v_masks) as x (span));
    v_gone := beliefdb._forgotten_turns(p_text ->> 'content', p_text -> 'fragments', v_masks);
    return p_text || jsonb_build_object(
        'content', beliefdb._masked(p_text ->> 'content', v_masks),
        'claims', (select coalesce(jsonb_agg(c.x order by c.n), '[]')
                     from jsonb_array_elements(coalesce(p_text -> 'claims', '[]')) with ordinality c (x, n)
                    where not beliefdb._over_spans(c.x, v_spans)),
        'fragments', (select coalesce(jsonb_agg(f.x order by f.n), '[]')
                        from jsonb_array_elements(beliefdb._masked_labels(p_text ->> 'content',
                                                  coalesce(p_text -> 'fragments', '[]'), v_masks))
                             with ordinality f (x, n)
                       where not (nullif(f.x ->> 'speaker', '') is not null
                                  and int4range((f.x ->> 'start')::integer, (f.x ->> 'end')::integer) = any (v_gone))),
        -- (a rejection the gate made of a quote over those words goes: it would repeat them)
        'rejected', (select coalesce(jsonb_agg(j.x order by j.n), '[]')
                       from jsonb_array_elements(coalesce(p_text -> 'rejected', '[]')) with ordinality j (x, n)
                      where coalesce(j.x ->> 'quote', '') = ''
                         or strpos(p_text ->> 'content', j.x ->> 'quote') = 0
                         or strpos(beliefdb._masked(p_text ->> 'content', v_masks), j.x ->> 'quote') > 0));
end
$$;
comment on function beliefdb._forgotten_proposal(uuid, uuid, jsonb) is 'A proposed text masked where it repeats a line forgotten in its source (what an approved proposal keeps)';
