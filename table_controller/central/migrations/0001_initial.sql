-- Central record of every table's journal (version 1).
-- entries: every journal entry as the table wrote it; (table_id, journal_id, seq) is its key.
-- journal_id is the hash of the journal's entry 1: a new journal file has another identity.
CREATE TABLE journals (
    table_id     text             NOT NULL,
    journal_id   text             NOT NULL,
    first_wall   double precision NOT NULL,
    shipped_seq  bigint           NOT NULL DEFAULT 0,
    shipped_hash text             NOT NULL,
    shipped_at   timestamptz,
    PRIMARY KEY (table_id, journal_id)
);

CREATE TABLE entries (
    table_id     text             NOT NULL,
    journal_id   text             NOT NULL,
    seq          bigint           NOT NULL CHECK (seq >= 1),
    kind         text             NOT NULL,
    hand         integer,
    wall_time    double precision NOT NULL,
    mono_time    double precision NOT NULL,
    -- payload_text is the canonical JSON the hash covers; payload is the same, for queries
    payload      jsonb            NOT NULL,
    payload_text text             NOT NULL,
    prev_hash    text             NOT NULL,
    hash         text             NOT NULL,
    shipped_at   timestamptz      NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, journal_id, seq)
);
CREATE INDEX entries_hand ON entries (table_id, journal_id, hand) WHERE hand IS NOT NULL;
CREATE INDEX entries_kind_wall ON entries (kind, wall_time);

-- hands: one row a hand, derived by the shipper from hand_start / hand_end / device_event
-- and dealer_command entries (rewritten whole as the hand goes on).
CREATE TABLE hands (
    table_id       text        NOT NULL,
    journal_id     text        NOT NULL,
    hand           integer     NOT NULL,
    started        timestamptz NOT NULL,
    ended          timestamptz,
    voided         boolean     NOT NULL DEFAULT false,
    seats          integer[]   NOT NULL DEFAULT '{}',
    board          text[]      NOT NULL DEFAULT '{}',
    hole           jsonb       NOT NULL DEFAULT '{}',
    cards          text[]      NOT NULL DEFAULT '{}',
    irregularities text[]      NOT NULL DEFAULT '{}',
    first_seq      bigint      NOT NULL,
    last_seq       bigint      NOT NULL,
    PRIMARY KEY (table_id, journal_id, hand)
);
CREATE INDEX hands_started ON hands (started);
CREATE INDEX hands_table_started ON hands (table_id, started);
CREATE INDEX hands_river ON hands ((board[5]), started);
CREATE INDEX hands_cards ON hands USING gin (cards);
CREATE INDEX hands_hole ON hands USING gin (hole jsonb_path_ops);
CREATE INDEX hands_irregularities ON hands USING gin (irregularities);

-- irregularities: every irregularity, device alert and link fault, also between hands.
CREATE TABLE irregularities (
    table_id   text        NOT NULL,
    journal_id text        NOT NULL,
    seq        bigint      NOT NULL,
    hand       integer,
    at         timestamptz NOT NULL,
    kind       text        NOT NULL,
    text       text        NOT NULL,
    PRIMARY KEY (table_id, journal_id, seq, kind)
);
CREATE INDEX irregularities_at ON irregularities (at);
