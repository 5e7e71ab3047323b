-- beliefdb: forgotten words that come back (docs/rules.md, rule 14).
-- A span forget masks remembers the line it lay in: the line's offset and length in its version, and a
-- keyed digest of the line's words as they were (beliefdb.redaction.line_digest, under the workspace's
-- secret key: a list of sentences does not reverse it). A line of a new text of the same source that is
-- that line again, word for word (a chat cut at its end, forgotten in, then ingested whole again; a
-- document back at an earlier text), has the same spans masked where it is stored. Words nobody forgot
-- are never masked: another speaker's turn, or the same speaker's other words, are another line.

-- Where each line of a text starts (character offsets in order, the first 0), in one pass.
create or replace function beliefdb._line_starts(p_text text) returns integer[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select array(select (coalesce(sum(length(t.l) + 1) over (order by t.k rows between unbounded preceding
                                                                      and 1 preceding), 0))::integer
                   from unnest(string_to_array(p_text, E'\n')) with ordinality as t (l, k)
                  order by t.k)
$$;
comment on function beliefdb._line_starts(text) is 'The offset where each line of a text starts, in order';

-- The line, or lines, each span of a text lies in: from the start of the line where it starts to the end
-- of the line where it ends (its newline not in it), as offset and length. Each span's line found by a
-- binary search of the lines' starts (width_bucket), the text read once.
create or replace function beliefdb._line_units(p_text text, p_spans int4range[])
returns table (span int4range, line_start integer, line_length integer)
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select x.span, l.starts[a.i],
           coalesce(l.starts[b.i + 1] - 1, length(p_text)) - l.starts[a.i]
      from (select beliefdb._line_starts(p_text) as starts) l
     cross join unnest(p_spans) with ordinality as x (span, n)
     cross join lateral (select width_bucket(lower(x.span), l.starts) as i) a
     cross join lateral (select width_bucket(greatest(upper(x.span) - 1, lower(x.span)), l.starts) as i) b
     order by x.n
$$;
comment on function beliefdb._line_units(text, int4range[]) is 'The line (offset, length) each span of a text lies in';

-- The spans of p_text, in its lines that start after offset p_from (every line: 0), that a forget
-- masked in a version of source p_source_id: each line of p_text whose words are a masked line's as they
-- were (the same length and keyed digest) has that line's spans masked at the same places in it. In
-- text order; none (at the cost of one probe of the source's versions) when nothing of it was forgotten.
create or replace function beliefdb._forgotten_lines(p_workspace_id uuid, p_source_id uuid, p_text text,
                                                     p_from integer default 0)
returns int4range[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_lengths integer[];
    -- (the text from p_from on, read alone: a turn appended to a long chat reads only its own lines)
    v_tail text := substr(p_text, greatest(p_from, 0) + 1);
    v_starts integer[];
    v_at integer[];
    v_length integer[];
    v_pads bytea[];
begin
    select array_agg(distinct r.line_length) into v_lengths
      from beliefdb.source_version v
      join beliefdb.redaction r on r.workspace_id = v.workspace_id and r.source_version_id = v.id
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and r.line_digest is not null;
    if v_lengths is null or p_text is null then
        return '{}';
    end if;
    v_starts := beliefdb._line_starts(v_tail);
    -- (the candidates: a line's start, and a length a masked line had that ends a line there; a line of
    -- the text before p_from, whose end the tail begins with, is none of them; their words read in one
    -- pass, beliefdb._slices, then digested)
    with l as (
        select s.s, coalesce(lead(s.s) over (order by s.s) - 1, length(v_tail)) as e from unnest(v_starts) s (s)
    )
    select coalesce(array_agg(a.s order by a.s, n.n), '{}'), coalesce(array_agg(n.n order by a.s, n.n), '{}')
      into v_at, v_length
      from l a cross join unnest(v_lengths) n (n) join l b on b.e = a.s + n.n
     where a.s > 0 or greatest(p_from, 0) = 0;
    if cardinality(v_at) = 0 then
        return '{}';
    end if;
    v_pads := beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id));
    return (
        select coalesce(array_agg(distinct int4range(greatest(p_from, 0) + c.s + r.start_offset - r.line_start,
                                                     greatest(p_from, 0) + c.s + r.end_offset - r.line_start)), '{}')
          from unnest(v_at, v_length, beliefdb._slices(v_tail, v_at, array(select x.s + x.n from unnest(v_at, v_length) x (s, n))))
               as c (s, n, words)
          join (select r.line_length, r.line_digest, r.line_start, r.start_offset, r.end_offset
                  from beliefdb.source_version v
                  join beliefdb.redaction r on r.workspace_id = v.workspace_id and r.source_version_id = v.id
                 where v.workspace_id = p_workspace_id and v.source_id = p_source_id and r.line_digest is not null) r
            on r.line_length = c.n
           and r.line_digest = sha256(v_pads[2] || sha256(v_pads[1] || convert_to(c.words, 'UTF8'))));
end
$$;
comment on function beliefdb._forgotten_lines(uuid, uuid, text, integer) is 'The spans of a text masked before in lines of its source that it repeats word for word';

-- Of the turns given with a text (p_fragments: start, end, speaker), the spans of those a forget took
-- out of it (p_spans, masked there): a turn masked whole whose speaker's name is masked in the line
-- that labels it is a forgotten speaker's, not a turn again; a turn whose words alone are masked (a
-- forgotten belief quoted them whole) stays its speaker's, masked.
create or replace function beliefdb._forgotten_turns(p_text text, p_fragments jsonb, p_spans int4range[])
returns int4range[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    -- (their union made once, as in beliefdb._believable; the label of each turn masked whole read in
    -- one pass, beliefdb._slices: a substr of each was quadratic in a long text)
    with m as (
        select coalesce(range_agg(x.span), '{}'::int4multirange) as spans from unnest(p_spans) as x (span)
    ), t as (
        select array_agg(int4range((f ->> 'start')::integer, (f ->> 'end')::integer)
                         order by (f ->> 'start')::integer) as spans
          from m, jsonb_array_elements(case when jsonb_typeof(p_fragments) = 'array' then p_fragments else '[]' end) f
         where nullif(f ->> 'speaker', '') is not null
           and (f ->> 'start')::integer < (f ->> 'end')::integer
           and int4range((f ->> 'start')::integer, (f ->> 'end')::integer) <@ m.spans
    )
    -- (its label: from the start of its line, within the 260 characters a label may take, to the turn)
    select coalesce(array_agg(l.span order by l.span), '{}')
      from t, m,
           unnest(t.spans, beliefdb._slices(p_text, array(select greatest(lower(x) - 260, 0) from unnest(t.spans) x),
                                            array(select lower(x) from unnest(t.spans) x))) as l (span, label)
     where int4range(lower(l.span) - coalesce(nullif(strpos(reverse(l.label), E'\n'), 0) - 1, length(l.label)),
                     lower(l.span)) && m.spans
$$;
comment on function beliefdb._forgotten_turns(text, jsonb, int4range[]) is 'Of the turns given with a text, those a forget took out of it: masked whole, their speaker''s name masked in their label';
