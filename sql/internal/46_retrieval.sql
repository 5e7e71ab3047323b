-- beliefdb: the internals of retrieval (docs/rules.md, rule 11): a question's full-text queries.
-- Its words as lexemes, the query ranking uses, which words are too common to nominate candidates,
-- and the query that nominates them.

-- The words of a question as full-text lexemes: English stems, plus words in other scripts as
-- written (the simple configuration), sorted and without repeats.
create or replace function beliefdb._question_lexemes(p_question text) returns text[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select array(select t.lexeme from unnest(to_tsvector('pg_catalog.english', p_question)) t
                 union
                 select t.lexeme from unnest(to_tsvector('pg_catalog.simple', p_question)) t
                  where t.lexeme ~ '[^\x01-\x7f]'
                 order by 1)
$$;
comment on function beliefdb._question_lexemes(text) is 'Full-text lexemes of a question: English stems and non-ASCII words as written';

-- An OR query of the question's words: English stems, plus words in other scripts as written.
create or replace function beliefdb._question_query(p_question text) returns tsquery
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select nullif(array_to_string(array(select pg_catalog.quote_literal(l)
                                          from unnest(beliefdb._question_lexemes(p_question)) l), ' | '),
                  '')::tsquery
$$;
comment on function beliefdb._question_query(text) is 'Full-text OR query of a question: English stems and non-ASCII words as written';

-- Which of some lexemes are common in the store: estimated to occur in more than p_max_rows
-- beliefs (ANALYZE's most common elements of belief.search, times the table's row count; over all
-- workspaces). Without statistics (a new store, or a role that cannot read them) none is.
create or replace function beliefdb._common_lexemes(p_lexemes text[], p_max_rows double precision) returns text[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(x.lexeme order by x.lexeme), '{}')
      from pg_catalog.pg_stats s
     cross join lateral unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as x (lexeme, freq)
     where s.schemaname = 'beliefdb' and s.tablename = 'belief' and s.attname = 'search'
       and x.lexeme = any(p_lexemes)
       and x.freq * (select c.reltuples from pg_catalog.pg_class c where c.oid = 'beliefdb.belief'::regclass)
           > p_max_rows
$$;
comment on function beliefdb._common_lexemes(text[], double precision) is 'The lexemes estimated (from ANALYZE statistics) to occur in more than a number of beliefs';

-- The query that nominates full-text candidates for a question. A common word matches too many
-- beliefs to single any out, and ranking its matches would be most of the search's time: only the
-- other words nominate (OR). If every word is common, all of them together do (AND). Ranking
-- still uses every word (question_query).
create or replace function beliefdb._nominating_query(p_lexemes text[], p_common text[]) returns tsquery
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select nullif(case when p_lexemes <@ p_common
                       then array_to_string(array(select pg_catalog.quote_literal(l) from unnest(p_lexemes) l), ' & ')
                       else array_to_string(array(select pg_catalog.quote_literal(l) from unnest(p_lexemes) l
                                                   where l <> all(p_common)), ' | ')
                  end, '')::tsquery
$$;
comment on function beliefdb._nominating_query(text[], text[]) is 'Full-text query that nominates candidates: the words that are not common (OR), else all of them (AND)';
