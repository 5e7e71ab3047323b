-- beliefdb: types and tables.
-- Rules cited as "rule N" are those of docs/rules.md.
-- Tables change only through alembic revisions (migrations/versions); this file is the
-- canonical result of applying all of them, and the one file of sql/ a migration does not
-- re-apply. Every primary and foreign key leads with workspace_id so the schema can be
-- distributed by workspace.

-- pgvector's and pg_trgm's types and operator classes are named unqualified: they live wherever
-- the extensions are installed, which schema/02_extensions.sql puts on the search path.

-- Kinds of node: everything that can hold is a node.
create type beliefdb.node_kind as enum
    ('fragment', 'belief', 'decision', 'action', 'correction', 'step');
comment on type beliefdb.node_kind is 'What a node is; each kind has its own table sharing the node key';

-- Authority tiers, weakest first, so that comparison operators rank them.
create type beliefdb.authority as enum ('unverified', 'agent', 'user', 'internal', 'official');
comment on type beliefdb.authority is 'Authority tier of a source; declared weakest first so > ranks them';

-- Provenance label of a source.
create type beliefdb.provenance as enum ('production', 'fixture', 'synthetic');
comment on type beliefdb.provenance is 'Whether a source is real history or made-up material';

-- Where text comes from.
create type beliefdb.origin_type as enum
    ('document', 'conversation', 'api_feed', 'agent', 'human_reviewer');
comment on type beliefdb.origin_type is 'Origin type of a source';

-- Lifecycle status of a belief.
create type beliefdb.belief_status as enum
    ('current', 'conflicting', 'superseded', 'unsupported', 'retracted', 'quarantined', 'expired');
comment on type beliefdb.belief_status is 'Status of a belief; current and conflicting beliefs are the ones that are true now; expired ones held until their valid time ended';

-- Kind of confidence: a reviewer''s sentence and a matched quote are different kinds.
create type beliefdb.confidence_kind as enum
    ('extracted', 'human_correction', 'derived', 'agent_asserted');
comment on type beliefdb.confidence_kind is 'How a belief''s confidence came about';

-- Typed edges between beliefs that are not reasons.
create type beliefdb.relation_kind as enum ('supersedes', 'conflicts_with', 'clarifies', 'refines');
comment on type beliefdb.relation_kind is 'Kind of relation between two beliefs';

-- Kinds of antecedent edge in a justification; all of them propagate.
create type beliefdb.edge_kind as enum
    ('evidence', 'cites', 'supports', 'carries_out', 'derives', 'produces', 'updates',
     'consolidates', 'reads', 'initiates');
comment on type beliefdb.edge_kind is 'Kind of a propagating edge from antecedent to consequent';

-- Entries of a node's adjacency: its own standing, an edge out of it, one of its justifications.
create type beliefdb.adjacency_entry as enum ('self', 'out', 'in');
comment on type beliefdb.adjacency_entry is 'What a row of beliefdb.adjacency says of its node: self, an edge out, a justification in';

-- Kinds of recorded agent step.
create type beliefdb.step_kind as enum
    ('user_input', 'memory_read', 'claim', 'plan', 'tool_call', 'observation', 'answer',
     'memory_write');
comment on type beliefdb.step_kind is 'Kind of an agent step';

-- What the API returns (sql/api/): one composite type per kind of result, whose fields are those
-- of the Python model it is loaded into (beliefdb/models/). Arrays of them are lists of records.

-- A decision, action or derived belief just recorded (decide, act, derive).
create type beliefdb.recorded as (
    id uuid, status text,
    -- the same request again (its idempotency key, or the same derivation): nothing recorded, the first
    -- one's node (revision 0051)
    already_applied boolean);
comment on type beliefdb.recorded is 'A decision, action or derived belief just recorded, with the status the truth rules gave it';

-- One live reason of a decision that lost another (its antecedents): a decision surviving on two
-- reasons is two of these, so a change report stays a flat list.
create type beliefdb.still_supported as (decision uuid, reason uuid[]);
comment on type beliefdb.still_supported is 'One reason (its antecedents) that still holds a decision which lost another';

-- The net change report of one operation (rule 7), and of a proposal to a source's owner.
create type beliefdb.changes as (
    stopped_holding uuid[], started_holding uuid[], stopped_current uuid[], became_current uuid[],
    flagged uuid[], held uuid[], survives beliefdb.still_supported[],
    proposed boolean, review_item uuid, owner text);
comment on type beliefdb.changes is 'What one change did (or would do): holding, current, flags, holds, surviving reasons; a proposal to an owner changes nothing';

-- What decay or recompute moved (rule 9).
create type beliefdb.confidence_report as (
    now timestamptz, beliefs integer, changed integer, lowered integer, raised integer, became_low integer,
    recovered integer, low_confidence integer, threshold real, preview boolean);
comment on type beliefdb.confidence_report is 'What a decay or recompute of every confidence moved (preview: would move)';

-- Beliefs whose valid time ended, processed (rule 16).
create type beliefdb.expired as (expired integer, beliefs uuid[], now timestamptz, changes beliefdb.changes);
comment on type beliefdb.expired is 'Beliefs whose valid time had ended, processed, and the change they made';

-- What forget took away (rule 14).
create type beliefdb.forget_result as (
    target text, versions integer, fragments integer, beliefs integer, evidence integer, embeddings integer,
    redacted integer, flagged uuid[], would_flag uuid[], held uuid[], changes beliefdb.changes, preview boolean,
    -- the queued jobs and the proposals whose text it masked or cleared, and where people typed a
    -- forgotten subject's name, left as typed (revision 0044)
    jobs integer, proposals integer, mentions jsonb,
    -- the turns whose speaker's label it masked, stored and waiting (revision 0046)
    labels_masked integer);
comment on type beliefdb.forget_result is 'What forgetting a source, a subject or a belief took away (preview: would take away)';

-- An outcome just recorded.
create type beliefdb.outcome_recorded as (
    id uuid, node uuid, kind text, outcome text, status text,
    -- the same request again by its idempotency key: nothing recorded, the first one's outcome (revision 0051)
    already_applied boolean);
comment on type beliefdb.outcome_recorded is 'An outcome recorded for a decision or action, and the action''s status after it';

-- The latest outcome of a decision or action.
create type beliefdb.last_outcome as (outcome text, note text, at timestamptz, by text);
comment on type beliefdb.last_outcome is 'The latest recorded outcome of a decision or action, its note, when and by whom';

-- One effect of a change (impact): detail is free-form (a title, a description, reasons).
create type beliefdb.impact_row as (node uuid, kind text, effect text, detail jsonb);
comment on type beliefdb.impact_row is 'One effect of a change: stops_holding, becomes_current, flag, hold or survives, with free-form detail';

-- What a correction would change (rules 6, 7).
create type beliefdb.correction_preview as (
    belief uuid, revision integer, would_flag uuid[], would_hold uuid[], still_supported beliefdb.still_supported[],
    owner text, proposed boolean, changes beliefdb.changes, if_approved beliefdb.impact_row[]);
comment on type beliefdb.correction_preview is 'What a correction would change, with the revision it saw; a proposal shows what the owner''s approval would change';

-- A correction applied, or proposed to the belief's owner.
create type beliefdb.correction_result as (
    correction uuid, replacement uuid, superseded uuid[], flagged uuid[], held uuid[], already_applied boolean,
    proposed boolean, review_item uuid, owner text, changes beliefdb.changes);
comment on type beliefdb.correction_result is 'A correction applied (or already applied), or proposed to the belief''s owner as a review item';

-- A review item resolved; the reports of what an approval applied keep their own (jsonb) shapes, and
-- closed lists the other review items the verdict resolved (revision 0051).
create type beliefdb.review_resolution as (
    item uuid, kind text, node uuid, source_id uuid, status text, correction jsonb, applied jsonb, closed jsonb);
comment on type beliefdb.review_resolution is 'A review item approved or rejected, with the report of what an approved proposal or conflict applied and the other review items the verdict closed';

-- One item of a repair plan (rule 10).
create type beliefdb.plan_item as (
    node uuid, node_kind text, step_kind text, run_id uuid, seq integer, action text, reason text, saved_by uuid[]);
comment on type beliefdb.plan_item is 'One item of a repair plan: delete, quarantine, invalidate, replay or preserve a node, and why';

-- A repair carried out (its store side).
create type beliefdb.repair_result as (
    repair_id uuid, faulty uuid[], plan beliefdb.plan_item[], changes beliefdb.changes);
comment on type beliefdb.repair_result is 'A repair''s store side carried out: its id, the faulty memories, the plan in order and the change';

-- A batch of a run recorded.
create type beliefdb.trace_recorded as (run uuid, steps integer, memories integer);
comment on type beliefdb.trace_recorded is 'A batch of an agent run recorded: the run and how many steps and memories it added';

-- A citation a decision of a run could not keep, and why (decide_in_run, rule 19).
create type beliefdb.refusal as (belief text, reason text);
comment on type beliefdb.refusal is 'A citation a decision of a run could not keep (not read in the run, or no longer current), and why';

-- A decision recorded in a run, with the citations it could not keep (decide_in_run, rule 19).
create type beliefdb.run_decision as (
    id uuid, status text, run uuid, refused beliefdb.refusal[],
    -- the same request again by its idempotency key: nothing recorded, the first one's decision (revision 0051)
    already_applied boolean);
comment on type beliefdb.run_decision is 'A decision recorded in a run: its id and status, the run, and the citations refused';

-- Tenant boundary; ids are generated by the server.
create table beliefdb.workspace (
    id uuid primary key default pg_catalog.gen_random_uuid(),
    name text not null unique check (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
    created_at timestamptz not null default pg_catalog.now()
);
comment on table beliefdb.workspace is 'Tenant boundary: every other row belongs to exactly one workspace';

-- Every node of the support graph; per-kind tables share its key.
create table beliefdb.node (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id uuid not null default pg_catalog.gen_random_uuid(),
    kind beliefdb.node_kind not null,
    holds boolean not null default false,
    current boolean not null default false,
    retracted_at timestamptz,
    retraction_reason text,
    created_at timestamptz not null default beliefdb.clock(),
    -- the justification it holds by now (null: a premise, or it does not hold) and its rank, which
    -- exceeds the rank of every antecedent of that justification: supports are well-founded
    -- (rule 2 of docs/rules.md), 0 for a premise, null when it does not hold (revision 0022)
    support uuid,
    support_rank bigint,
    primary key (workspace_id, id),
    unique (workspace_id, id, kind)
);
comment on table beliefdb.node is 'Everything that can hold: fragments, beliefs, decisions, actions, corrections, steps; holds is the stored least fixpoint, current = holds and not superseded';

-- Where text comes from.
create table beliefdb.source (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id uuid not null default pg_catalog.gen_random_uuid(),
    name text not null check (name <> ''),
    origin_type beliefdb.origin_type not null default 'document',
    authority beliefdb.authority not null default 'unverified',
    provenance beliefdb.provenance not null default 'production',
    created_at timestamptz not null default beliefdb.clock(),
    retracted_at timestamptz,
    retraction_reason text,
    -- the principal that first ingested it: only they change its text, label or standing
    owner text not null default beliefdb.current_principal(),
    primary key (workspace_id, id),
    unique (workspace_id, name)
);
comment on table beliefdb.source is 'A document, conversation, feed, agent or reviewer that text comes from';

-- Immutable text of a source at one time.
create table beliefdb.source_version (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    source_id uuid not null,
    version integer not null check (version > 0),
    content text not null,
    sha256 bytea not null,
    label text,
    path text,
    recorded_at timestamptz not null default beliefdb.clock(),
    retracted_at timestamptz,
    retraction_reason text,
    primary key (workspace_id, id),
    unique (workspace_id, source_id, version),
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade
);
comment on table beliefdb.source_version is 'Immutable text of a source at one time, with its sha256; the latest non-retracted version is in force';

-- An exact character span [start_offset, end_offset) of a source version.
create table beliefdb.fragment (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'fragment' check (node_kind = 'fragment'),
    source_version_id uuid not null,
    start_offset integer not null check (start_offset >= 0),
    end_offset integer not null,
    text text not null,
    speaker text check (speaker <> ''),
    spoken_at timestamptz,
    -- words for full-text search (ask's fallback to unextracted text): English stems, and every
    -- word as written, as belief.search has them; stored, so ranking does not parse the text again
    search tsvector generated always as (
        pg_catalog.to_tsvector('pg_catalog.english'::regconfig, text)
        || pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, text)) stored,
    -- a turn appended with an idempotency key: the key, which names that request alone (rule 18; revision
    -- 0051), and whether the request gave no time (its spoken_at is when beliefdb stored it); its words,
    -- speaker and conversation are compared with this row's own, never kept a second time (rule 14)
    idempotency_key text,
    stamped boolean,
    primary key (workspace_id, id),
    unique (workspace_id, source_version_id, start_offset, end_offset),
    check (end_offset > start_offset),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade,
    foreign key (workspace_id, source_version_id) references beliefdb.source_version (workspace_id, id) on delete cascade
);
comment on table beliefdb.fragment is 'An exact character span of a source version; its text equals the version text at its offsets';
comment on column beliefdb.fragment.speaker is 'Who said this fragment, when it is a turn of a conversation (null for a document)';
comment on column beliefdb.fragment.spoken_at is 'When this turn of a conversation was said (null when unknown, or for a document)';
comment on column beliefdb.fragment.search is 'Words of the fragment text for full-text search: English stems and every word as written';
comment on column beliefdb.fragment.idempotency_key is 'The idempotency key of the request that appended this turn (append_turn; rule 18), unique in its workspace';
comment on column beliefdb.fragment.stamped is 'Of a turn appended with an idempotency key: whether its request gave no time (spoken_at is when it was stored)';
-- The turn an idempotency key appended (revision 0051).
create unique index fragment_idempotency_key on beliefdb.fragment (workspace_id, idempotency_key)
    where idempotency_key is not null;

-- A statement the memory holds, with subject / attribute / value.
create table beliefdb.belief (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'belief' check (node_kind = 'belief'),
    statement text not null check (statement <> ''),
    subject text not null check (subject <> ''),
    attribute text not null check (attribute <> ''),
    value text not null,
    kind text not null default 'fact'
        check (kind in ('fact', 'rule', 'policy', 'preference', 'procedure', 'event', 'observation', 'other')),
    scope jsonb not null default '{}' check (pg_catalog.jsonb_typeof(scope) = 'object'),
    valid_time tstzrange not null default '(,)',
    recorded_at timestamptz not null default beliefdb.clock(),
    confidence real not null default 0 check (confidence between 0 and 1),
    confidence_kind beliefdb.confidence_kind not null default 'extracted',
    status beliefdb.belief_status not null default 'current',
    revision integer not null default 1 check (revision > 0),
    owner text not null default beliefdb.current_principal(),
    -- words for full-text search: English stems of the statement, and every word as written
    -- (the simple configuration) so non-English text and names still match
    search tsvector generated always as (
        setweight(pg_catalog.to_tsvector('pg_catalog.english'::regconfig, statement), 'A')
        || setweight(pg_catalog.to_tsvector('pg_catalog.simple'::regconfig,
                                            statement || ' ' || pg_catalog.replace(subject, '_', ' ') || ' '
                                            || pg_catalog.replace(attribute, '_', ' ') || ' ' || value), 'B')
    ) stored,
    -- the world it belongs to: the label of the source that first stated it; only evidence of
    -- that world supports it, and it meets only beliefs of that world under rule 8
    provenance beliefdb.provenance not null default 'production',
    -- what it says when it is stored (beliefdb.belief_sha256 of its statement, subject, attribute,
    -- value, kind, scope, valid time and world), computed by a trigger and never changed: beliefdb
    -- never changes what a belief says, so audit_verify finds a belief whose words were changed by hand
    sha256 bytea not null,
    primary key (workspace_id, id),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade
);
comment on table beliefdb.belief is 'A statement (subject, attribute, value) with scope, valid time, confidence and status';

create index belief_subject_attribute on beliefdb.belief (workspace_id, subject, attribute);
create index belief_search on beliefdb.belief using gin (search);
create index belief_subject_trgm on beliefdb.belief using gin (subject gin_trgm_ops);
-- beliefs that may expire: the current ones with an end to their valid time, by that end
create index belief_expiry on beliefdb.belief (workspace_id, upper(valid_time))
    where status in ('current', 'conflicting') and not upper_inf(valid_time);
-- beliefs with an end to their valid time, by id: the closure walk asks which of its beliefs ended
create index belief_ending on beliefdb.belief (workspace_id, id) include (valid_time)
    where not upper_inf(valid_time);
-- production beliefs newest first: the product view's page reads its rows in this order (revision 0045)
create index belief_recent on beliefdb.belief (workspace_id, recorded_at desc, id) where provenance = 'production';
-- beliefs whose value has a run of whitespace or a tab, as stored before extracted values were spelled
-- with single spaces: a claim spelled anew finds the belief's spelling through it (revision 0051)
create index belief_spaced_value on beliefdb.belief (workspace_id, subject, attribute)
    where value ~ '[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]{2}|[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]';

-- Why a node holds: one justification is one reason; all its antecedents must hold.
create table beliefdb.justification (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    consequent uuid not null,
    created_at timestamptz not null default beliefdb.clock(),
    -- how many antecedents are not current, kept by triggers (internal/22_derived_columns.sql):
    -- evaluating a
    -- closure then never reads the nodes outside it
    unmet integer not null default 0,
    primary key (workspace_id, id),
    foreign key (workspace_id, consequent) references beliefdb.node (workspace_id, id) on delete cascade
);
comment on table beliefdb.justification is 'One reason a node holds; a node with several holds if any one does';

-- the justifications of a closure and what they miss, from the index alone
create index justification_consequent on beliefdb.justification (workspace_id, consequent) include (id, unmet);

-- The antecedents of a justification, each with a propagating edge kind.
create table beliefdb.justification_antecedent (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    justification_id uuid not null,
    antecedent uuid not null,
    edge_kind beliefdb.edge_kind not null,
    -- the justification's consequent, copied by a trigger (internal/22_derived_columns.sql)
    -- so that walking
    -- a closure is one index-only scan per node
    consequent uuid not null,
    primary key (workspace_id, justification_id, antecedent),
    foreign key (workspace_id, justification_id) references beliefdb.justification (workspace_id, id) on delete cascade,
    foreign key (workspace_id, antecedent) references beliefdb.node (workspace_id, id) on delete cascade
);
comment on table beliefdb.justification_antecedent is 'An antecedent of a justification: the node it needs, and how';

create index justification_antecedent_antecedent on beliefdb.justification_antecedent (workspace_id, antecedent)
    include (justification_id, consequent);

-- Everything a closure walk reads of a node, side by side in one index, so that each node it
-- reaches costs one index descent: its standing (self), the edges out of it (out: justification
-- and consequent) and its justifications (in: justification and what it misses). An out row into
-- a leaf (not a belief, one justification of one antecedent, no edge out: an action, for one) also
-- carries the leaf's standing, so the walk never reads the leaf itself (revision 0008). A belief's
-- self row says whether it supersedes, is superseded by or is tied with another belief (related),
-- so the walk looks up the relations of those alone (revision 0009). An out row that carries its
-- consequent's support says so (support), in the same index, so that what a retraction takes down
-- is walked from it by those rows with one descent per node reached (revision 0028). An out row
-- says whether its consequent is a decision (into_decision; a node's kind never changes), so that
-- of what rests on a node that stops holding outside that walk, the decisions alone are read, the
-- ones that may lose a reason (revision 0030).
-- Derived rows: triggers (internal/24_adjacency.sql) keep them equal to node, justification,
-- justification_antecedent and relation, and beliefdb.rebuild_adjacency rewrites a workspace's
-- from them.
create table beliefdb.adjacency (
    workspace_id uuid not null,
    node uuid not null,
    entry beliefdb.adjacency_entry not null,
    justification uuid not null,  -- out: a justification the node is an antecedent of; in: one of the node's;
                                  -- self: the node's own id
    consequent uuid,              -- out: that justification's consequent
    unmet integer,                -- in: the justification's unmet
    kind beliefdb.node_kind,      -- self: the node's kind, holds, current, and whether it is retracted;
    holds boolean,                -- out into a leaf: the leaf's
    current boolean,
    retracted boolean,
    related boolean,              -- self: whether a supersession or a tie involves the node
    support boolean,              -- out: the justification is its consequent's support (node.support)
    into_decision boolean,        -- out: the consequent is a decision
    constraint adjacency_pkey primary key (workspace_id, node, entry, justification)
        include (consequent, unmet, kind, holds, current, retracted, related, support, into_decision),
    constraint adjacency_check check (case entry
               when 'self' then justification = node and kind is not null and holds is not null
                                and current is not null and retracted is not null and related is not null
                                and into_decision is null
               when 'out' then consequent is not null and unmet is null and related is null
                               and (kind is null) = (holds is null) and (kind is null) = (current is null)
                               and (kind is null) = (retracted is null) and into_decision is not null
               else unmet is not null and related is null and into_decision is null
           end)
);
comment on table beliefdb.adjacency is 'Derived: each node''s standing, edges out and justifications in one index, for the closure walk';

-- A belief supported by a fragment, with the exact quote.
create table beliefdb.evidence (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    belief_id uuid not null,
    fragment_id uuid not null,
    quote text not null,
    role text not null default 'supports' check (role in ('supports', 'contradicts', 'mentions')),
    justification_id uuid,
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, belief_id, fragment_id),
    foreign key (workspace_id, belief_id) references beliefdb.belief (workspace_id, id) on delete cascade,
    foreign key (workspace_id, fragment_id) references beliefdb.fragment (workspace_id, id) on delete cascade,
    foreign key (workspace_id, justification_id) references beliefdb.justification (workspace_id, id) on delete cascade,
    check ((role = 'supports') = (justification_id is not null))
);
comment on table beliefdb.evidence is 'A belief supported by a fragment; the quote equals the fragment text byte for byte';

create index evidence_fragment on beliefdb.evidence (workspace_id, fragment_id);
-- a justification's evidence, by justification: its deletion (forget) cascades here, and without
-- the index each lookup read every evidence row of the workspace. By the id alone, not led by
-- workspace_id, so that it is no candidate for a probe of the workspace by another key (a plan made
-- while the table looked empty took such an index, and read the workspace's every row for each)
create index evidence_justification on beliefdb.evidence (justification_id);

-- Typed edges between beliefs that are not reasons (supersedes, conflicts_with, ...).
create table beliefdb.relation (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    from_belief uuid not null,
    to_belief uuid not null,
    kind beliefdb.relation_kind not null,
    reason text not null default '',
    created_at timestamptz not null default beliefdb.clock(),
    -- a supersession whose superseder no longer held when rule 8 settled the pair the other way
    -- ends (revision 0029): history, no longer in effect
    ended_at timestamptz,
    primary key (workspace_id, id),
    check (from_belief <> to_belief),
    constraint relation_only_supersession_ends check (ended_at is null or kind = 'supersedes'),
    foreign key (workspace_id, from_belief) references beliefdb.belief (workspace_id, id) on delete cascade,
    foreign key (workspace_id, to_belief) references beliefdb.belief (workspace_id, id) on delete cascade
);
comment on table beliefdb.relation is 'A typed edge between two beliefs that is not a reason: supersedes, conflicts_with, clarifies';
comment on column beliefdb.relation.ended_at is 'When a supersession stopped applying (its superseder no longer held and rule 8 settled the pair again); null while in effect';

-- one relation in effect per pair of beliefs and kind; ended ones are history beside it
create unique index relation_in_effect on beliefdb.relation (workspace_id, from_belief, to_belief, kind)
    where ended_at is null;
create index relation_to_belief on beliefdb.relation (workspace_id, to_belief, kind);
-- a belief's relations from it, every one (relation_in_effect has those in effect only): a deleted
-- belief's cascade reads them, and without the index each read every relation of the workspace. By
-- the id alone, as evidence_justification (led by workspace_id, it was taken for probes by to_belief)
create index relation_from_belief on beliefdb.relation (from_belief);

-- What an agent decided, citing beliefs.
create table beliefdb.decision (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'decision' check (node_kind = 'decision'),
    title text not null check (title <> ''),
    status text not null default 'active'
        check (status in ('active', 'needs_review', 'approved', 'rejected')),
    revision integer not null default 1 check (revision > 0),
    owner text not null default beliefdb.current_principal(),
    created_at timestamptz not null default beliefdb.clock(),
    -- its reasons, {justification id: [antecedent ids, sorted]}, kept by triggers
    -- (internal/22_derived_columns.sql):
    -- impact lists what a surviving decision still rests on from the row it reads anyway
    reasons jsonb not null default '{}',
    primary key (workspace_id, id),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade,
    -- how many of its reasons were forgotten: they went with what they cited (rule 14; revision 0044)
    forgotten_reasons integer not null default 0 check (forgotten_reasons >= 0),
    -- the key of the request that recorded it, which names that request alone (rule 18; revision 0051),
    -- and the SHA-256 of the reasons (as the beliefs they resolve to, sorted and once) and the run that
    -- request gave (beliefdb._decision_request; null without a key)
    idempotency_key text,
    request_sha256 bytea,
    unique (workspace_id, idempotency_key)
);
comment on table beliefdb.decision is 'A decision built on beliefs; flagged needs_review when it loses its last support';
-- A page of the decisions listing, in its order (revision 0035).
create index decision_listing on beliefdb.decision (workspace_id, created_at, id);

-- What carries out a decision.
create table beliefdb.action (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'action' check (node_kind = 'action'),
    decision_id uuid not null,
    description text not null check (description <> ''),
    status text not null default 'scheduled'
        check (status in ('scheduled', 'held', 'done', 'failed', 'rolled_back', 'cancelled')),
    owner text not null default beliefdb.current_principal(),
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, id),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade,
    foreign key (workspace_id, decision_id) references beliefdb.decision (workspace_id, id) on delete cascade,
    -- the key of the request that recorded it, which names that request alone (rule 18; revision 0051)
    idempotency_key text,
    unique (workspace_id, idempotency_key)
);
comment on table beliefdb.action is 'An action carrying out a decision; held while its decision needs review';

create index action_decision on beliefdb.action (workspace_id, decision_id);
-- A page of the actions listing, in its order (revision 0035).
create index action_listing on beliefdb.action (workspace_id, created_at, id);

-- A reviewer's change to a belief; a premise in its own right.
create table beliefdb.correction (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'correction' check (node_kind = 'correction'),
    belief_id uuid not null,
    belief_revision integer not null,
    reviewer text not null check (reviewer <> ''),
    new_statement text not null check (new_statement <> ''),
    new_value text,
    reason text,
    idempotency_key text,
    fragment_id uuid,
    replacement_belief_id uuid,
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, id),
    unique (workspace_id, idempotency_key),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade,
    foreign key (workspace_id, belief_id) references beliefdb.belief (workspace_id, id) on delete cascade,
    foreign key (workspace_id, fragment_id) references beliefdb.fragment (workspace_id, id) on delete set null (fragment_id),
    foreign key (workspace_id, replacement_belief_id) references beliefdb.belief (workspace_id, id) on delete set null (replacement_belief_id)
);
comment on table beliefdb.correction is 'A reviewer''s correction of a belief; its text is a human-correction fragment';
-- the cascades from a deleted belief or fragment find its corrections (revision 0041: keyed by the id
-- alone, as evidence_justification; partial where the column may be null)
create index correction_belief on beliefdb.correction (belief_id);
create index correction_fragment on beliefdb.correction (fragment_id) where fragment_id is not null;
create index correction_replacement on beliefdb.correction (replacement_belief_id)
    where replacement_belief_id is not null;

-- An agent's recorded trace.
create table beliefdb.run (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    agent text not null default beliefdb.current_principal(),
    task text not null default '',
    parent_run_id uuid,
    created_at timestamptz not null default beliefdb.clock(),
    -- the principal that recorded it: only it records steps and decisions in it (revision 0042)
    owner text not null default beliefdb.current_principal(),
    primary key (workspace_id, id),
    foreign key (workspace_id) references beliefdb.workspace (id) on delete cascade,
    foreign key (workspace_id, parent_run_id) references beliefdb.run (workspace_id, id) on delete cascade
);
comment on table beliefdb.run is 'An agent''s recorded trace; a replay is a new run whose parent is the old one';
-- a deleted run's replays, by its id (revision 0041)
create index run_parent on beliefdb.run (parent_run_id) where parent_run_id is not null;

-- One step of a run; time order is seq, which never propagates.
create table beliefdb.step (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_kind beliefdb.node_kind not null default 'step' check (node_kind = 'step'),
    run_id uuid not null,
    seq integer not null check (seq >= 0),
    kind beliefdb.step_kind not null,
    payload jsonb not null default '{}',
    created_at timestamptz not null default beliefdb.clock(),
    status text not null default 'recorded'
        check (status in ('recorded', 'invalidated', 'replay_pending', 'replayed')),
    replay_of uuid,
    -- the world of what it rests on (rule 15), stored when recorded; null before revision 0049
    world beliefdb.provenance,
    primary key (workspace_id, id),
    unique (workspace_id, run_id, seq),
    foreign key (workspace_id, id, node_kind) references beliefdb.node (workspace_id, id, kind) on delete cascade,
    foreign key (workspace_id, run_id) references beliefdb.run (workspace_id, id) on delete cascade,
    foreign key (workspace_id, replay_of) references beliefdb.step (workspace_id, id) on delete set null (replay_of)
);
comment on table beliefdb.step is 'One step of an agent run: user input, memory read, claim, plan, tool call, observation, answer, memory write; status says what a repair made of it';
comment on column beliefdb.step.world is 'The world of what the step rests on (rule 15), the highest of production < fixture < synthetic; null for a step recorded before revision 0049';
-- a deleted step's replays, by its id (revision 0041)
create index step_replay_of on beliefdb.step (replay_of) where replay_of is not null;

-- Trace edges that are not reasons: pure time order, and a step deleting a memory.
create table beliefdb.trace_edge (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    from_node uuid not null,
    to_node uuid not null,
    kind text not null check (kind in ('follows', 'deletes')),
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, from_node, to_node, kind),
    foreign key (workspace_id, from_node) references beliefdb.node (workspace_id, id) on delete cascade,
    foreign key (workspace_id, to_node) references beliefdb.node (workspace_id, id) on delete cascade
);
comment on table beliefdb.trace_edge is 'Trace edges that never propagate holding: follows (time order) and deletes (a step removed a memory)';

create index trace_edge_to_node on beliefdb.trace_edge (workspace_id, to_node);

-- A rollback repair: the faulty memories, the plan computed for them, and when it was replayed.
create table beliefdb.repair (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    faulty uuid[] not null,
    independent_evidence boolean not null default true,
    plan jsonb not null,
    created_at timestamptz not null default beliefdb.clock(),
    created_by text not null default beliefdb.current_principal(),
    replayed_at timestamptz,
    primary key (workspace_id, id),
    foreign key (workspace_id) references beliefdb.workspace (id) on delete cascade
);
comment on table beliefdb.repair is 'An applied rollback repair: faulty memories, the plan carried out, and its replay';

-- The embedding model of each workspace; switching model is an explicit reembed.
create table beliefdb.embedding_model (
    workspace_id uuid primary key default beliefdb.current_workspace_id()
        references beliefdb.workspace (id) on delete cascade,
    model text not null,
    dim integer not null check (dim > 0),
    target_model text,
    target_dim integer check (target_dim > 0),
    updated_at timestamptz not null default beliefdb.clock(),
    check ((target_model is null) = (target_dim is null))
);
comment on table beliefdb.embedding_model is 'The embedding model (name, dimension) of each workspace, and the one a reembed in progress moves to';

-- Belief embeddings: one per belief and model, never mixed across models in one search.
create table beliefdb.belief_embedding (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    belief_id uuid not null,
    model text not null,
    embedding vector not null,
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, belief_id, model),
    foreign key (workspace_id, belief_id) references beliefdb.belief (workspace_id, id) on delete cascade
);
comment on table beliefdb.belief_embedding is 'Embedding of a belief''s statement under one model; searched only with query vectors of the same model';

-- HNSW (cosine) for the default model's dimension; other dimensions get theirs on reembed.
create index belief_embedding_hnsw_384 on beliefdb.belief_embedding
    using hnsw ((embedding::vector(384)) vector_cosine_ops)
    where vector_dims(embedding) = 384;

-- Durable review items: flagged decisions, held actions, unresolved conflicts.
create table beliefdb.review_item (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    kind text not null check (kind in ('decision_flagged', 'action_held', 'conflict', 'correction_proposed',
                                       'version_proposed', 'retraction_proposed')),
    node uuid,
    other_node uuid,
    reason text not null,
    status text not null default 'open' check (status in ('open', 'approved', 'rejected', 'closed')),
    created_at timestamptz not null default beliefdb.clock(),
    resolved_at timestamptz,
    resolved_by text,
    note text,
    -- a correction proposed by a principal who does not own the belief: who, and what it says
    proposed_by text,
    proposal jsonb,
    -- a new version or a retraction of another principal's source is proposed about the source
    source_id uuid,
    primary key (workspace_id, id),
    foreign key (workspace_id, node) references beliefdb.node (workspace_id, id) on delete cascade,
    foreign key (workspace_id, other_node) references beliefdb.node (workspace_id, id) on delete cascade,
    constraint review_item_source_id_fkey
        foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade,
    constraint review_item_subject_check
        check ((node is null) <> (source_id is null)
               and (source_id is null) = (kind not in ('version_proposed', 'retraction_proposed'))),
    -- the order of its resolution among its workspace's (revision 0047): the next number of the workspace
    -- when it was resolved, taken under the workspace's write lock (internal/40_review.sql), so in the
    -- order the resolutions commit; items resolved in one transaction share their resolved_at
    resolved_seq bigint,
    constraint review_item_resolved_seq_check check ((resolved_at is null) = (resolved_seq is null))
);
comment on table beliefdb.review_item is 'A durable item for a person to approve or reject: a flagged decision, a held action, a conflict, a proposed correction, version or retraction; closed when it settled by itself';

-- one open item per flagged decision, held action and tie (a pair), but several principals may
-- each propose a change
create unique index review_item_open on beliefdb.review_item (workspace_id, kind, node, other_node) nulls not distinct
    where status = 'open' and kind in ('decision_flagged', 'action_held', 'conflict');
create index review_item_node on beliefdb.review_item (workspace_id, kind, node);
-- the open items oldest first: the review queue's pages read them in this order (revision 0045)
create index review_item_queue on beliefdb.review_item (workspace_id, created_at, id) where status = 'open';
-- the cascades from a deleted node or source find its review items by the id alone (revision 0041:
-- review_item_node leads with kind, which only PostgreSQL 18's skip scan reads past)
create index review_item_by_node on beliefdb.review_item (node) where node is not null;
create index review_item_other_node on beliefdb.review_item (other_node) where other_node is not null;
create index review_item_source on beliefdb.review_item (source_id) where source_id is not null;
-- the workspace's resolutions in order: the last number taken, and one number per resolution (revision 0047)
create unique index review_item_resolution on beliefdb.review_item (workspace_id, resolved_seq)
    where resolved_seq is not null;

-- Spans of source text masked when a subject was forgotten (the text itself is gone).
create table beliefdb.redaction (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    source_version_id uuid not null,
    start_offset integer not null check (start_offset >= 0),
    end_offset integer not null,
    reason text not null,
    created_at timestamptz not null default beliefdb.clock(),
    created_by text not null default beliefdb.current_principal(),
    -- the line the span lay in, and a keyed digest of its words before they were masked (revision 0048):
    -- the same line back in a text of the source is masked again (beliefdb._forgotten_lines)
    line_start integer,
    line_length integer,
    line_digest bytea,
    -- the random salt its digest was made with (revision 0050): no other digest is ever the same, so a
    -- digest anyone can have made of a guess (forgetting it in a text of their own) confirms nothing
    line_salt bytea,
    primary key (workspace_id, id),
    check (end_offset > start_offset),
    foreign key (workspace_id, source_version_id) references beliefdb.source_version (workspace_id, id) on delete cascade,
    constraint redaction_line_check
        check ((line_start is null) = (line_digest is null) and (line_length is null) = (line_digest is null))
);
comment on table beliefdb.redaction is 'A span of a source version masked when something in it was forgotten: offsets, reason and its line''s keyed digest, never the text';
-- a version's masked spans, by version: every ingest of a source asks what of its text in force is
-- forgotten, and a version's deletion cascades here
create index redaction_version on beliefdb.redaction (workspace_id, source_version_id, start_offset);

-- When each node, source and source version was retracted, and when it was restored: retracted_at
-- says only what is retracted now, and as-of questions ask what was retracted then (rule 16).
-- Derived: a trigger (internal/38_decisions.sql) opens a period when retracted_at is set and closes
-- it when it is cleared (revision 0036; retractions undone before it left no period).
create table beliefdb.retraction_period (
    workspace_id uuid not null,
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_id uuid,
    source_id uuid,
    source_version_id uuid,
    retracted_at timestamptz not null,
    reason text,
    restored_at timestamptz,
    primary key (workspace_id, id),
    check (num_nonnulls(node_id, source_id, source_version_id) = 1),
    foreign key (workspace_id, node_id) references beliefdb.node (workspace_id, id) on delete cascade,
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade,
    foreign key (workspace_id, source_version_id) references beliefdb.source_version (workspace_id, id)
        on delete cascade
);
comment on table beliefdb.retraction_period is 'Derived: when a node, source or source version was retracted (and why) and restored (what as-of questions read)';
create index retraction_period_node on beliefdb.retraction_period (workspace_id, node_id, retracted_at)
    where node_id is not null;
create index retraction_period_source on beliefdb.retraction_period (workspace_id, source_id, retracted_at)
    where source_id is not null;
create index retraction_period_version on beliefdb.retraction_period (workspace_id, source_version_id, retracted_at)
    where source_version_id is not null;

-- A source's authority before each change of it, and when it changed: source.authority says only what
-- it is now, and as-of confidence asks what it was then (rule 9). Derived: a trigger
-- (internal/38_decisions.sql) writes a row whenever a source's authority changes (revision 0048;
-- changes before it left none).
create table beliefdb.authority_change (
    workspace_id uuid not null,
    id uuid not null default pg_catalog.gen_random_uuid(),
    source_id uuid not null,
    authority_before beliefdb.authority not null,
    changed_at timestamptz not null,
    primary key (workspace_id, id),
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade
);
comment on table beliefdb.authority_change is 'Derived: a source''s authority before each change of it, and when (what as-of confidence reads)';
create index authority_change_source on beliefdb.authority_change (workspace_id, source_id, changed_at);

-- Head of each workspace's audit chain: one row, locked by every append.
create table beliefdb.audit_head (
    workspace_id uuid primary key references beliefdb.workspace (id) on delete cascade,
    seq bigint not null,
    hash bytea not null
);
comment on table beliefdb.audit_head is 'Last link of each workspace''s audit chain; its row lock serializes appends';

-- Append-only, per-workspace SHA-256 hash chain of every change.
create table beliefdb.audit_event (
    workspace_id uuid not null references beliefdb.workspace (id) on delete cascade,
    seq bigint not null check (seq > 0),
    at timestamptz not null default beliefdb.clock(),
    principal text not null,
    action text not null,
    payload jsonb,
    payload_hash bytea not null,
    prev_hash bytea not null,
    hash bytea not null,
    primary key (workspace_id, seq)
);
comment on table beliefdb.audit_event is 'Append-only audit chain: hash = sha256(prev_hash || event fields || payload_hash); a payload may be redacted, its hash stays';
-- events written before revision 0050 that recorded a text's plain sha256 (an ingest, a version
-- proposed), by source: a forget that masks words of the source's texts redacts them (_redact_spans)
create index audit_event_plain_digest on beliefdb.audit_event (workspace_id, (payload ->> 'source'))
    where payload ? 'sha256' and action in ('ingest', 'version.propose');

-- Each workspace's secret key for the digests its audit chain records of what was forgotten (revision
-- 0044): a forget event keeps the HMAC-SHA-256 of the name under this key, which a list of names does
-- not reverse; and, since revision 0050, of every text ingested and of every statement's rows, which a
-- guess of words a forget masked does not confirm. Made on its first use; read only by beliefdb's own
-- functions (the application role has no privilege on it).
create table beliefdb.audit_key (
    workspace_id uuid primary key references beliefdb.workspace (id) on delete cascade,
    key bytea not null check (pg_catalog.length(key) = 64),
    created_at timestamptz not null default pg_catalog.now()
);
comment on table beliefdb.audit_key is 'Each workspace''s secret key for the keyed digests (HMAC-SHA-256) its audit chain records: forgotten names, texts and rows';

-- Weights of the confidence model; a DBA may change them.
create table beliefdb.confidence_policy (
    factor text not null,
    key text not null,
    weight real not null check (weight between 0 and 1),
    description text not null default '',
    primary key (factor, key)
);
comment on table beliefdb.confidence_policy is 'Weights of the explainable confidence model, editable by a DBA';

-- Half-life of confidence per belief kind, in days since the belief was last verified.
create table beliefdb.confidence_half_life (
    kind text primary key
        check (kind in ('fact', 'rule', 'policy', 'preference', 'procedure', 'event', 'observation', 'other')),
    days real not null check (days > 0),
    description text not null default ''
);
comment on table beliefdb.confidence_half_life is 'Half-life of confidence per belief kind (days since last verified), editable by a DBA';

-- The SQLSTATEs beliefdb's own SQL raises: one name and one meaning each (rows: schema/90_seed.sql).
create table beliefdb.error_code (
    code text primary key check (code ~ '^BD[0-9A-Z]{3}$'),
    name text not null unique check (name ~ '^[a-z][a-z_]*$'),
    meaning text not null check (meaning <> '')
);
comment on table beliefdb.error_code is 'Error codes (SQLSTATEs) beliefdb raises: one name and one meaning each; with --json the CLI prints the name';

-- What actually happened after a decision or an action.
create table beliefdb.outcome (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node uuid not null,
    outcome text not null check (outcome in ('succeeded', 'failed', 'rolled_back', 'disputed')),
    note text,
    recorded_by text not null default beliefdb.current_principal(),
    recorded_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, id),
    foreign key (workspace_id, node) references beliefdb.node (workspace_id, id) on delete cascade,
    -- the key of the request that recorded it, which names that request alone (rule 18; revision 0051)
    idempotency_key text,
    unique (workspace_id, idempotency_key)
);
comment on table beliefdb.outcome is 'What actually happened after a decision or action: succeeded, failed, rolled back or disputed; the latest counts';

create index outcome_node on beliefdb.outcome (workspace_id, node, recorded_at);

-- No statistics on workspace_id: a new workspace is not in the most-common-values list, so the
-- planner would take it for empty and walk its rows by workspace alone; without statistics the
-- planner keeps using the rest of each index's key.
do $$
declare
    v_table text;
begin
    for v_table in
        select c.relname from pg_catalog.pg_class c
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r'
    loop
        execute pg_catalog.format('alter table beliefdb.%I alter column workspace_id set statistics 0', v_table);
    end loop;
end
$$;

-- Bearer tokens of the HTTP and MCP servers (revision 0014): each binds one principal to one
-- workspace, so a client over the network can neither claim another principal nor re-bind itself
-- to another workspace. Only the SHA-256 of the secret is stored; the secret is shown once. Made,
-- listed and revoked by the schema owner; the application role only asks beliefdb.authenticate.
create table beliefdb.api_token (
    workspace_id uuid not null references beliefdb.workspace (id) on delete cascade,
    id uuid not null default pg_catalog.gen_random_uuid(),
    token_sha256 bytea not null check (pg_catalog.length(token_sha256) = 32),
    principal text not null check (principal ~ '^[A-Za-z0-9][A-Za-z0-9_.@:+-]{0,127}$'),
    read_only boolean not null default false,
    created_at timestamptz not null default pg_catalog.now(),
    revoked_at timestamptz,
    primary key (workspace_id, id)
);
comment on table beliefdb.api_token is 'Bearer tokens of the servers: the SHA-256 of a secret shown once, the principal and workspace it binds, read-only or not, revoked or not';

create index api_token_sha256 on beliefdb.api_token (token_sha256);
alter table beliefdb.api_token alter column workspace_id set statistics 0;

-- Login roles bound to one workspace (revision 0015): for a session logged in as one of them,
-- beliefdb.current_workspace_id is this workspace and a beliefdb.workspace_id setting naming another
-- is refused, so a direct database client cannot re-bind itself. Made and dropped with the role by
-- the schema owner (beliefdb agent create | drop); the application role may not read it. No foreign
-- key to the workspace: deleting the workspace must not delete the binding, which would leave the
-- login free to bind any other; a login bound to a deleted workspace sees and writes nothing.
create table beliefdb.agent_login (
    workspace_id uuid not null,
    role_name text not null check (role_name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
    created_at timestamptz not null default pg_catalog.now(),
    -- the database it was made in (revision 0050): a copy of that database on the same server (its dump
    -- restored, or made from it as a template) holds the binding, and the role is the cluster's
    made_in name default pg_catalog.current_database(),
    primary key (workspace_id, role_name)
);
comment on table beliefdb.agent_login is 'Login roles made by beliefdb agent create, each bound to the one workspace its sessions act in';
comment on column beliefdb.agent_login.made_in is 'The database the binding was made in: in a copy of it on the same server, its agents do not act';

create index agent_login_role on beliefdb.agent_login (role_name);
alter table beliefdb.agent_login alter column workspace_id set statistics 0;

-- Work submitted to run later by a worker (revision 0018; beliefdb worker): one document to
-- ingest per job. A worker takes a job with a row lock held for the job's whole transaction, in
-- which the ingest's writes and the job's completion commit together: a worker that dies rolls
-- both back, and the job is taken again (status 'running' is only ever seen inside that
-- transaction).
create table beliefdb.job (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id bigint generated always as identity,
    kind text not null check (kind in ('ingest')),
    payload jsonb not null check (pg_catalog.jsonb_typeof(payload) = 'object'),
    status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
    attempts integer not null default 0 check (attempts >= 0),
    max_attempts integer not null default 5 check (max_attempts between 1 and 100),
    run_after timestamptz not null default pg_catalog.now(),
    last_error text check (pg_catalog.strpos(last_error, E'\n') = 0),
    result jsonb,
    submitted_by text not null default beliefdb.current_principal(),
    worker text,
    created_at timestamptz not null default pg_catalog.now(),
    started_at timestamptz,
    finished_at timestamptz,
    primary key (workspace_id, id)
);
comment on table beliefdb.job is 'Queued work (a document to ingest): status, attempts and backoff, the last error, and the result once done';
comment on sequence beliefdb.job_id_seq is 'Job ids, in the order jobs are submitted (workers take the oldest ready job first)';

create index job_ready on beliefdb.job (workspace_id, id) where status = 'queued';
create index job_status on beliefdb.job (workspace_id, status, id);
create index job_queued_source on beliefdb.job (workspace_id, (payload ->> 'source'), id) where status = 'queued';
-- the done jobs of a source: whether the text in force was read with a payload's extractor (job_submit;
-- revision 0051)
create index job_done_source on beliefdb.job (workspace_id, (payload ->> 'source'), id) where status = 'done';
-- the jobs whose text a forget masked, by source, for every ingest of that source to find (revision 0049:
-- beliefdb._forgotten_lines read every failed job's payload of the workspace to find none)
create index job_forgotten_lines on beliefdb.job (workspace_id, (payload ->> 'source')) where payload ? 'forgotten_lines';
alter table beliefdb.job alter column workspace_id set statistics 0;

-- Each start of a job, recorded by its worker on a connection of its own as soon as it has taken
-- it (committed at once, while the job's own transaction runs on): a worker that dies rolls back
-- its job's transaction, not its start, so a document that brings its worker down every time uses
-- up its attempts like any failure and is then failed with the reason (beliefdb.job_take).
create table beliefdb.job_start (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id bigint generated always as identity,
    job_id bigint not null,
    worker text,
    started_at timestamptz not null default pg_catalog.clock_timestamp(),
    primary key (workspace_id, id)
);
comment on table beliefdb.job_start is 'Each start of a job by a worker, committed at once: the attempts a job had even when its worker died';
comment on sequence beliefdb.job_start_id_seq is 'Job start ids, in the order jobs were started';

create index job_start_job on beliefdb.job_start (workspace_id, job_id);
alter table beliefdb.job_start alter column workspace_id set statistics 0;

-- How many beliefs of a workspace have each full-text lexeme in their search words (revision
-- 0021): the statistics retrieval ranks with, so that what one workspace stores never changes
-- another's answers (the database-wide pg_stats did). Derived rows: triggers
-- (internal/46_retrieval.sql) keep them equal to belief.search, and beliefdb.refresh_ranking_stats
-- rewrites a workspace's from it. A lexeme no belief has any more has no row.
create table beliefdb.lexeme_frequency (
    workspace_id uuid not null references beliefdb.workspace (id) on delete cascade,
    lexeme text not null,
    beliefs bigint not null check (beliefs > 0),
    primary key (workspace_id, lexeme)
);
comment on table beliefdb.lexeme_frequency is 'Derived: how many beliefs of the workspace have each full-text lexeme (ranking statistics, per workspace)';

alter table beliefdb.lexeme_frequency alter column workspace_id set statistics 0;

-- The words of fragment text, for ask's fallback to text no belief was extracted from (revision
-- 0021; over the stored column since revision 0024).
create index fragment_search on beliefdb.fragment using gin (search);
-- The speakers of a conversation's turns by their version, which ask's fallback reads a name at a
-- time (revision 0034): a long conversation's every turn is not read to find its two people.
create index fragment_speaker on beliefdb.fragment (workspace_id, source_version_id, speaker)
    where speaker is not null;
