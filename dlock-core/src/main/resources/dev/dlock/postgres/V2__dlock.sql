-- dlock's PostgreSQL schema, version 2: run after V1__dlock.sql, in the same schema.
--
-- Version 1 keyed dlock_hold, dlock_waiter and dlock_listener by the lock's key in a btree (their
-- primary keys), whose entries hold at most 2,704 bytes: a name the API accepts, 1,024 characters
-- of three bytes each in UTF-8, did not fit ("index row size ... exceeds btree version 4 maximum").
-- Version 2 keeps the same tables and rows and keys them by md5 of the key (or channel) with the
-- other columns of the old key instead, in a unique index of fixed size, and finds a name's rows
-- through a hash index on the key, which has no size limit and compares the key itself: every
-- function still matches rows by the whole key. Two keys of one md5 would have to be taken under
-- one owner id (waiter id, listener) to meet in the unique index, which no application's names do
-- by accident.
--
-- dlock runs it on first use after version 1 (in one transaction with it, when schema creation is
-- allowed); teams that run migrations ship it as their next version after V1__dlock.sql (Flyway:
-- as it is; Liquibase: <sqlFile ... splitStatements="false"/>). It changes no row, so locks held
-- while it runs stay held; its ALTER TABLEs wait for the calls under way and hold the next ones
-- for the moment they take. Running it again changes nothing.

SELECT pg_advisory_xact_lock(1684826987, 0);  -- one creator at a time

ALTER TABLE dlock_hold DROP CONSTRAINT IF EXISTS dlock_hold_pkey;
CREATE UNIQUE INDEX IF NOT EXISTS dlock_hold_key ON dlock_hold (md5(name), owner, mode);
CREATE INDEX IF NOT EXISTS dlock_hold_name ON dlock_hold USING hash (name);

ALTER TABLE dlock_waiter DROP CONSTRAINT IF EXISTS dlock_waiter_pkey;
CREATE UNIQUE INDEX IF NOT EXISTS dlock_waiter_key ON dlock_waiter (md5(name), waiter_id);
CREATE INDEX IF NOT EXISTS dlock_waiter_name ON dlock_waiter USING hash (name);

ALTER TABLE dlock_listener DROP CONSTRAINT IF EXISTS dlock_listener_pkey;
CREATE UNIQUE INDEX IF NOT EXISTS dlock_listener_key ON dlock_listener (md5(channel), listener);
CREATE INDEX IF NOT EXISTS dlock_listener_channel ON dlock_listener USING hash (channel);

-- The functions that insert with ON CONFLICT, as in version 1 but for the new unique indexes.

-- dlock_subscribe: V1__dlock.sql's contract, kept; its ON CONFLICT is on the new unique index.
CREATE OR REPLACE FUNCTION dlock_subscribe(p_channel text, p_listener text, p_pid integer) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    INSERT INTO dlock_listener VALUES (p_channel, p_listener, p_pid)
    ON CONFLICT ((md5(channel)), listener) DO UPDATE SET pid = excluded.pid
$$;

-- dlock_acquire: V1__dlock.sql's contract, kept; its ON CONFLICTs are on the new unique indexes.
CREATE OR REPLACE FUNCTION dlock_acquire(p_name text, p_mode "char", p_owner text, p_lease_ms bigint,
        p_holder text, p_reentry boolean, p_waiter_id text, p_waiter_timeout_ms bigint,
        p_may_wait boolean, p_downgrade text, p_permits integer,
        OUT status integer, OUT token bigint, OUT hold_count integer, OUT retry_ms bigint, OUT slot integer)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_lease_end timestamptz := v_now + p_lease_ms * interval '1 millisecond';
    v_hold_mode "char" := CASE WHEN p_mode = 'w' THEN 'x' ELSE p_mode END;
    v_blocked boolean;
    v_first text;
    v_stored integer;
BEGIN
    -- dlock_serialize and dlock_drop_ended, written out: this is the hottest path
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= v_now;
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= v_now;
    status := 0; token := 0; hold_count := 0; retry_ms := 0; slot := 0;

    IF p_reentry THEN
        -- a re-entry may extend the lease, never shorten it
        UPDATE dlock_hold SET hold_count = hold_count + 1, lease_end = greatest(lease_end, v_lease_end)
         WHERE name = p_name AND owner = p_owner AND mode = v_hold_mode
        RETURNING token, hold_count INTO token, hold_count;
        status := CASE WHEN FOUND THEN 1 ELSE -1 END;
        RETURN;
    END IF;

    IF p_waiter_id <> '' THEN
        -- handed to this waiter while its attempt was under way: claimed under the attempt's owner id
        UPDATE dlock_hold SET owner = p_owner, lease_end = v_lease_end
         WHERE name = p_name AND owner = p_waiter_id
        RETURNING token, hold_count INTO token, hold_count;
        IF FOUND THEN
            status := 1;
            RETURN;
        END IF;
        token := 0; hold_count := 0;  -- INTO without a row set them to NULL
    END IF;

    IF p_mode IN ('x', 'w') THEN
        v_blocked := EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_name AND owner <> p_owner);
        IF NOT v_blocked AND p_mode = 'x' THEN
            SELECT waiter_id INTO v_first FROM dlock_waiter
             WHERE name = p_name AND mode = 'x' ORDER BY ticket LIMIT 1;
            IF FOUND AND v_first <> p_waiter_id THEN
                -- free with others queued first (its holder's lease ran out): the first gets it now
                PERFORM dlock_pass_on(p_name, 0, v_now, '', false);
                v_blocked := true;
            END IF;
        END IF;
    ELSIF p_mode = 'r' THEN
        v_blocked := EXISTS (SELECT 1 FROM dlock_hold
                              WHERE name = p_name AND mode <> 'r' AND owner <> p_downgrade AND owner <> p_owner)
            OR (p_downgrade = '' AND EXISTS (SELECT 1 FROM dlock_waiter WHERE name = p_name AND mode = 'w'));
    ELSE
        v_blocked := EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_name AND mode <> 'p');
        IF NOT v_blocked THEN
            SELECT permits INTO v_stored FROM dlock_hold WHERE name = p_name LIMIT 1;
            IF FOUND AND v_stored <> p_permits THEN
                status := -2; hold_count := v_stored;
                RETURN;
            END IF;
            v_blocked := (SELECT count(*) FROM dlock_hold WHERE name = p_name AND owner <> p_owner) >= p_permits;
        END IF;
    END IF;

    IF v_blocked THEN
        SELECT greatest(1, ceil(extract(epoch FROM min(lease_end) - v_now) * 1000))::bigint INTO retry_ms
          FROM dlock_hold WHERE name = p_name;
        retry_ms := coalesce(retry_ms, greatest(1, p_waiter_timeout_ms));
        IF p_may_wait AND p_waiter_id <> '' THEN
            INSERT INTO dlock_waiter AS w VALUES (p_name, p_waiter_id, CASE WHEN p_mode = 'w' THEN 'w' ELSE 'x' END,
                   nextval('dlock_ticket_seq'), v_now + p_waiter_timeout_ms * interval '1 millisecond',
                   p_lease_ms, p_holder)
            ON CONFLICT ((md5(name)), waiter_id) DO UPDATE SET deadline = excluded.deadline,
                   lease_ms = excluded.lease_ms, holder = excluded.holder
            RETURNING w.ticket INTO token;
        END IF;
        RETURN;
    END IF;

    IF p_mode = 'p' THEN
        SELECT s INTO slot FROM generate_series(0, p_permits - 1) s
         WHERE NOT EXISTS (SELECT 1 FROM dlock_hold h WHERE h.name = p_name AND h.slot = s)
         ORDER BY s LIMIT 1;
    END IF;
    token := (('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint << 44)
             + nextval('dlock_token_seq');  -- dlock_next_token, written out
    -- the same attempt asking again after an outcome it did not learn keeps its grant
    INSERT INTO dlock_hold AS h VALUES (p_name, p_owner, v_hold_mode, 1, token, v_lease_end, v_now, p_holder,
           CASE WHEN p_mode = 'p' THEN p_permits ELSE 0 END, slot)
    ON CONFLICT ((md5(name)), owner, mode) DO UPDATE SET lease_end = greatest(h.lease_end, excluded.lease_end)
    RETURNING h.token, h.hold_count INTO token, hold_count;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_waiter_id;
    END IF;
    status := 1;
END $$;

-- dlock_acquire_all: V1__dlock.sql's contract, kept; its ON CONFLICTs are on the new unique
-- indexes.
CREATE OR REPLACE FUNCTION dlock_acquire_all(p_names text[], p_owners text[], p_lease_ms bigint, p_holder text,
        p_waiter_id text, p_waiter_timeout_ms bigint, p_may_wait boolean)
RETURNS TABLE (ord integer, status integer, token bigint, retry_ms bigint)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_lease_end timestamptz := v_now + p_lease_ms * interval '1 millisecond';
    v_hash integer;
    v_busy integer;
    v_first text;
    v_name text;
    v_token bigint;
    v_retry bigint;
    v_ticket bigint := 0;
    i integer;
BEGIN
    -- the names in one order, whatever the caller's: two multi-locks never wait for each other in a
    -- cycle, and a single name's call holds one advisory lock only
    FOR v_hash IN SELECT DISTINCT hashtext(n) FROM unnest(p_names) n ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(1684826987, v_hash);
    END LOOP;
    DELETE FROM dlock_hold WHERE name = ANY (p_names) AND lease_end <= v_now;
    DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND deadline <= v_now;

    FOR i IN 1 .. array_length(p_names, 1) LOOP
        IF EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_names[i] AND owner <> p_waiter_id) THEN
            v_busy := i;
            EXIT;
        END IF;
        CONTINUE WHEN EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_names[i]);  -- handed to this waiter
        SELECT waiter_id INTO v_first FROM dlock_waiter
         WHERE name = p_names[i] AND mode = 'x' ORDER BY ticket LIMIT 1;
        IF FOUND AND v_first <> p_waiter_id THEN
            -- free with others queued first (its holder's lease ran out): the first gets it now
            PERFORM dlock_pass_on(p_names[i], 0, v_now, '', false);
            v_busy := i;
            EXIT;
        END IF;
    END LOOP;

    IF v_busy IS NOT NULL THEN
        -- none of the others stays with this acquisition: names handed to it go on to their queues
        FOR v_name, v_token IN DELETE FROM dlock_hold
                WHERE name = ANY (p_names) AND name <> p_names[v_busy] AND owner = p_waiter_id
                RETURNING name, token LOOP
            PERFORM dlock_pass_on(v_name, v_token, v_now, p_waiter_id, true);
        END LOOP;
        DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND name <> p_names[v_busy] AND waiter_id = p_waiter_id;
        SELECT greatest(1, ceil(extract(epoch FROM min(lease_end) - v_now) * 1000))::bigint INTO v_retry
          FROM dlock_hold WHERE name = p_names[v_busy];
        v_retry := coalesce(v_retry, greatest(1, p_waiter_timeout_ms));
        IF p_may_wait AND p_waiter_id <> '' THEN
            INSERT INTO dlock_waiter AS w VALUES (p_names[v_busy], p_waiter_id, 'x', nextval('dlock_ticket_seq'),
                   v_now + p_waiter_timeout_ms * interval '1 millisecond', p_lease_ms, p_holder)
            ON CONFLICT ((md5(name)), waiter_id) DO UPDATE SET deadline = excluded.deadline,
                   lease_ms = excluded.lease_ms, holder = excluded.holder
            RETURNING w.ticket INTO v_ticket;
        END IF;
        RETURN QUERY SELECT v_busy, 0, v_ticket, v_retry;
        RETURN;
    END IF;

    FOR i IN 1 .. array_length(p_names, 1) LOOP
        UPDATE dlock_hold SET owner = p_owners[i], lease_end = v_lease_end
         WHERE name = p_names[i] AND owner = p_waiter_id AND p_waiter_id <> ''
        RETURNING token INTO v_token;
        IF NOT FOUND THEN
            v_token := dlock_next_token();
            -- the same attempt asking again after an outcome it did not learn keeps its grant
            INSERT INTO dlock_hold AS h VALUES (p_names[i], p_owners[i], 'x', 1, v_token, v_lease_end, v_now, p_holder, 0, 0)
            ON CONFLICT ((md5(name)), owner, mode) DO UPDATE SET lease_end = greatest(h.lease_end, excluded.lease_end)
            RETURNING h.token INTO v_token;
        END IF;
        RETURN QUERY SELECT i, 1, v_token, 0::bigint;
    END LOOP;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND waiter_id = p_waiter_id;
    END IF;
END $$;

-- dlock_schema_version: the version of this schema; dlock checks it at start.
--
-- Returns      2
-- Guarantees   reads no table (IMMUTABLE)
-- Called by    PgSchema
CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT 2 $$;
