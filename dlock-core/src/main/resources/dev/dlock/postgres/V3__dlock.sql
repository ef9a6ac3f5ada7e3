-- dlock's PostgreSQL schema, version 3: run after V2__dlock.sql, in the same schema.
--
-- Versions 1 and 2 inserted a dlock_hold row at every grant and deleted it at every release: one
-- hot name left a dead row per acquire/release pair, which every later call on it read past until
-- autovacuum came, and on PostgreSQL's default autovacuum settings the rate fell as they piled up.
-- Version 3 keeps one exclusive row (mode 'x': reentrant, fair, write and multi-locks) per name and
-- updates it in place: a grant writes the holder's columns into the row, a release writes the free
-- state back (owner '', hold_count 0, lease_end '-infinity', since = when it was freed). No indexed
-- column changes on either (the only index left is the hash index on name), so PostgreSQL makes
-- them heap-only-tuple updates, which the next visit of the page prunes without vacuum; the table's
-- fillfactor leaves each page the room for them. Read holds ('r') and semaphore permits ('p') keep
-- a row per hold, inserted and deleted as before.
--
-- Every function that changes a name reads the clock once the name's advisory lock is its own, not
-- when the call begins (versions 1 and 2 did): a lease it grants, to the caller or to a queued
-- waiter, runs from then. A release that waited for the lock (a call on the name ahead of it, or a
-- backend descheduled on a loaded host) handed the lock over with a lease counted from before the
-- waiter's last attempt, from whose start the waiter counts its validity, so that the database
-- freed it to the next holder while the waiter still believed itself valid.
--
-- An exclusive row whose lease_end has passed is a free row, not a hold: every function here asks
-- for lease_end > now where version 1 relied on ended rows being deleted first. Every grant still
-- takes a fresh fencing token (dlock_next_token); at most one 'x' row per name is kept by the
-- functions, all under dlock_serialize, in place of the unique index of version 2 (whose owner
-- column an in-place grant changes, which would rule out heap-only updates).
--
-- dlock runs it on first use after versions 1 and 2 (in one transaction with them, when schema
-- creation is allowed); teams that run migrations ship it as their next version after
-- V2__dlock.sql (Flyway: as it is; Liquibase: <sqlFile ... splitStatements="false"/>). Locks held
-- while it runs stay held: it deletes only exclusive rows whose lease has ended. Its DROP INDEX
-- waits for the calls under way and holds the next ones for the moment it takes. Running it again
-- changes nothing.

SELECT pg_advisory_xact_lock(1684826987, 0);  -- one creator at a time

-- Ended exclusive rows go (they were no holds); what is left is at most one 'x' row per name. (now():
-- the file's only clock outside a function, so that an edit of the functions' clock leaves it be.)
DELETE FROM dlock_hold WHERE mode = 'x' AND lease_end <= now();
DROP INDEX IF EXISTS dlock_hold_key;
CREATE INDEX IF NOT EXISTS dlock_hold_name ON dlock_hold USING hash (name);
-- Room on every page for the new versions of its rows' in-place updates (new pages; existing ones
-- get it as their rows move).
ALTER TABLE dlock_hold SET (fillfactor = 70);

-- dlock_take: gives a name's exclusive row to a new hold, in place.
--
-- p_name       the lock's key
-- p_owner      the new hold's owner id
-- p_token      its fencing token (fresh: dlock_next_token)
-- p_lease_end  its lease end
-- p_now        the caller's clock_timestamp()
-- p_holder     the holder description stored for inspection
--
-- Returns      nothing
-- Guarantees   the name's 'x' row afterwards is this hold (hold count 1); it is updated in place
--              when there is one, inserted when not, so a name never has two 'x' rows; call it under
--              dlock_serialize, when no live exclusive hold is left on p_name
-- Called by    dlock_pass_on, dlock_acquire_all, dlock_hand_off (dlock_acquire writes it out)
CREATE OR REPLACE FUNCTION dlock_take(p_name text, p_owner text, p_token bigint, p_lease_end timestamptz,
        p_now timestamptz, p_holder text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dlock_hold SET owner = p_owner, hold_count = 1, token = p_token, lease_end = p_lease_end,
           since = p_now, holder = p_holder, permits = 0, slot = 0
     WHERE name = p_name AND mode = 'x';
    IF NOT FOUND THEN
        INSERT INTO dlock_hold VALUES (p_name, p_owner, 'x', 1, p_token, p_lease_end, p_now, p_holder, 0, 0);
    END IF;
END $$;

-- dlock_free: ends exclusive holds of a name, in place: their row goes back to the free state.
--
-- p_name       the lock's key
-- p_owner      the owner id whose 'x' row to free, or NULL for the name's 'x' row whoever holds it
-- p_now        the caller's clock_timestamp()
--
-- Returns      the token of the row it freed, or NULL when there was none (or it was free already)
-- Guarantees   the row keeps its name, mode and token (no indexed column changes: a heap-only
--              update), its owner becomes '', hold count 0, lease_end '-infinity' and since p_now
--              (when it was freed, for dlock_sweep); call it under dlock_serialize
-- Called by    dlock_hand_off, dlock_abandon, dlock_force_release, dlock_acquire_all (dlock_release
--              writes it out)
CREATE OR REPLACE FUNCTION dlock_free(p_name text, p_owner text, p_now timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_token bigint;
BEGIN
    UPDATE dlock_hold SET owner = '', hold_count = 0, lease_end = '-infinity', since = p_now, holder = ''
     WHERE name = p_name AND mode = 'x' AND owner <> '' AND (p_owner IS NULL OR owner = p_owner)
    RETURNING token INTO v_token;
    RETURN v_token;
END $$;

-- dlock_drop_ended: drops what has ended on one name: read holds and permits whose lease ended,
-- and waiters whose deadline passed (an ended exclusive row stays: it is the name's free row).
--
-- p_name       the lock's key
-- p_now        the caller's clock_timestamp(), so that all of one call judges by one instant
--
-- Returns      nothing
-- Guarantees   no 'r' or 'p' hold whose lease_end, and no waiter whose deadline, is at or before
--              p_now is left on p_name; call it under dlock_serialize
-- Called by    dlock_hand_off, dlock_abandon, dlock_force_release (dlock_acquire and dlock_release
--              write it out)
CREATE OR REPLACE FUNCTION dlock_drop_ended(p_name text, p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= p_now AND mode <> 'x';
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= p_now;
END $$;

-- dlock_pass_on: V1__dlock.sql's contract, kept; the grant takes the name's exclusive row in place
-- (dlock_take).
CREATE OR REPLACE FUNCTION dlock_pass_on(p_name text, p_token bigint, p_now timestamptz, p_except text,
                                         p_publish boolean) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    w dlock_waiter;
    t bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_name AND lease_end > p_now) THEN
        RETURN NULL;
    END IF;
    SELECT * INTO w FROM dlock_waiter
     WHERE name = p_name AND mode = 'x' AND deadline > p_now AND waiter_id <> p_except
     ORDER BY ticket LIMIT 1;
    IF FOUND THEN
        t := dlock_next_token();
        DELETE FROM dlock_hold WHERE name = p_name AND mode <> 'x';  -- all ended: none is live
        PERFORM dlock_take(p_name, w.waiter_id, t,
                p_now + least(w.lease_ms * interval '1 millisecond', w.deadline - p_now), p_now, w.holder);
        DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = w.waiter_id;
        PERFORM dlock_publish(dlock_client_channel(p_name, w.waiter_id),
                'handoff' || chr(9) || p_name || ':released' || chr(9) || t || ':' || w.waiter_id);
        RETURN w.waiter_id;
    END IF;
    IF p_publish THEN
        PERFORM dlock_publish(p_name || ':released', p_token::text);
    END IF;
    RETURN NULL;
END $$;

-- dlock_acquire: V1__dlock.sql's contract, kept; an exclusive grant takes the name's row in place
-- (dlock_take, written out), every check counts live holds only (lease_end after now), and the
-- same attempt asking again finds its hold by owner under dlock_serialize instead of ON CONFLICT.
CREATE OR REPLACE FUNCTION dlock_acquire(p_name text, p_mode "char", p_owner text, p_lease_ms bigint,
        p_holder text, p_reentry boolean, p_waiter_id text, p_waiter_timeout_ms bigint,
        p_may_wait boolean, p_downgrade text, p_permits integer,
        OUT status integer, OUT token bigint, OUT hold_count integer, OUT retry_ms bigint, OUT slot integer)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    v_lease_end timestamptz;
    v_hold_mode "char" := CASE WHEN p_mode = 'w' THEN 'x' ELSE p_mode END;
    v_blocked boolean;
    v_first text;
    v_stored integer;
    v_token bigint;
    v_slot integer := 0;
BEGIN
    -- dlock_serialize and dlock_drop_ended, written out: this is the hottest path
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    v_lease_end := v_now + p_lease_ms * interval '1 millisecond';
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= v_now AND mode <> 'x';
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= v_now;
    status := 0; token := 0; hold_count := 0; retry_ms := 0; slot := 0;

    IF p_reentry THEN
        -- a re-entry may extend the lease, never shorten it
        UPDATE dlock_hold SET hold_count = hold_count + 1, lease_end = greatest(lease_end, v_lease_end)
         WHERE name = p_name AND owner = p_owner AND mode = v_hold_mode AND lease_end > v_now
        RETURNING token, hold_count INTO token, hold_count;
        status := CASE WHEN FOUND THEN 1 ELSE -1 END;
        RETURN;
    END IF;

    IF p_waiter_id <> '' THEN
        -- handed to this waiter while its attempt was under way: claimed under the attempt's owner id
        UPDATE dlock_hold SET owner = p_owner, lease_end = v_lease_end
         WHERE name = p_name AND owner = p_waiter_id AND lease_end > v_now
        RETURNING token, hold_count INTO token, hold_count;
        IF FOUND THEN
            status := 1;
            RETURN;
        END IF;
        token := 0; hold_count := 0;  -- INTO without a row set them to NULL
    END IF;

    IF p_mode IN ('x', 'w') THEN
        v_blocked := EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_name AND owner <> p_owner AND lease_end > v_now);
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
                              WHERE name = p_name AND mode <> 'r' AND owner <> p_downgrade AND owner <> p_owner
                                AND lease_end > v_now)
            OR (p_downgrade = '' AND EXISTS (SELECT 1 FROM dlock_waiter WHERE name = p_name AND mode = 'w'));
    ELSE
        v_blocked := EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_name AND mode <> 'p' AND lease_end > v_now);
        IF NOT v_blocked THEN
            SELECT permits INTO v_stored FROM dlock_hold WHERE name = p_name AND mode = 'p' LIMIT 1;
            IF FOUND AND v_stored <> p_permits THEN
                status := -2; hold_count := v_stored;
                RETURN;
            END IF;
            v_blocked := (SELECT count(*) FROM dlock_hold WHERE name = p_name AND mode = 'p' AND owner <> p_owner)
                         >= p_permits;
        END IF;
    END IF;

    IF v_blocked THEN
        SELECT greatest(1, ceil(extract(epoch FROM min(lease_end) - v_now) * 1000))::bigint INTO retry_ms
          FROM dlock_hold WHERE name = p_name AND lease_end > v_now;
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

    -- the same attempt asking again after an outcome it did not learn keeps its grant
    UPDATE dlock_hold SET lease_end = greatest(lease_end, v_lease_end)
     WHERE name = p_name AND owner = p_owner AND mode = v_hold_mode AND lease_end > v_now
    RETURNING token, hold_count, slot INTO token, hold_count, slot;
    IF NOT FOUND THEN
        v_token := (('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint << 44)
                   + nextval('dlock_token_seq');  -- dlock_next_token, written out
        IF v_hold_mode = 'x' THEN
            -- dlock_take, written out: the name's row, in place
            UPDATE dlock_hold SET owner = p_owner, hold_count = 1, token = v_token, lease_end = v_lease_end,
                   since = v_now, holder = p_holder, permits = 0, slot = 0
             WHERE name = p_name AND mode = 'x';
            IF NOT FOUND THEN
                INSERT INTO dlock_hold VALUES (p_name, p_owner, 'x', 1, v_token, v_lease_end, v_now, p_holder, 0, 0);
            END IF;
        ELSE
            IF p_mode = 'p' THEN
                SELECT s INTO v_slot FROM generate_series(0, p_permits - 1) s
                 WHERE NOT EXISTS (SELECT 1 FROM dlock_hold h WHERE h.name = p_name AND h.mode = 'p' AND h.slot = s)
                 ORDER BY s LIMIT 1;
            END IF;
            INSERT INTO dlock_hold VALUES (p_name, p_owner, v_hold_mode, 1, v_token, v_lease_end, v_now, p_holder,
                   CASE WHEN p_mode = 'p' THEN p_permits ELSE 0 END, v_slot);
        END IF;
        token := v_token; hold_count := 1; slot := v_slot;
    END IF;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_waiter_id;
    END IF;
    status := 1;
END $$;

-- dlock_release: V1__dlock.sql's contract, kept; the last exclusive hold frees the name's row in
-- place (dlock_free, written out), a read hold or permit is deleted as before.
CREATE OR REPLACE FUNCTION dlock_release(p_name text, p_mode "char", p_owner text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    v_left integer;
    v_token bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));  -- dlock_serialize, written out
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    -- the last hold goes in one statement; an inner re-entry counts down
    IF p_mode = 'x' THEN
        UPDATE dlock_hold SET owner = '', hold_count = 0, lease_end = '-infinity', since = v_now, holder = ''
         WHERE name = p_name AND owner = p_owner AND mode = 'x' AND lease_end > v_now AND hold_count = 1
        RETURNING token INTO v_token;
    ELSE
        DELETE FROM dlock_hold WHERE name = p_name AND owner = p_owner AND mode = p_mode AND lease_end > v_now
                                 AND hold_count = 1
        RETURNING token INTO v_token;
    END IF;
    IF NOT FOUND THEN
        UPDATE dlock_hold SET hold_count = hold_count - 1
         WHERE name = p_name AND owner = p_owner AND mode = p_mode AND lease_end > v_now AND hold_count > 1
        RETURNING hold_count INTO v_left;
        RETURN CASE WHEN FOUND THEN v_left ELSE -1 END;
    END IF;
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= v_now AND mode <> 'x';
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= v_now;
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN 0;
END $$;

-- dlock_acquire_all: V1__dlock.sql's contract, kept; each name's exclusive row is taken and freed
-- in place (dlock_take, dlock_free), and every check counts live holds only.
CREATE OR REPLACE FUNCTION dlock_acquire_all(p_names text[], p_owners text[], p_lease_ms bigint, p_holder text,
        p_waiter_id text, p_waiter_timeout_ms bigint, p_may_wait boolean)
RETURNS TABLE (ord integer, status integer, token bigint, retry_ms bigint)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    v_lease_end timestamptz;
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
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    v_lease_end := v_now + p_lease_ms * interval '1 millisecond';
    DELETE FROM dlock_hold WHERE name = ANY (p_names) AND lease_end <= v_now AND mode <> 'x';
    DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND deadline <= v_now;

    FOR i IN 1 .. array_length(p_names, 1) LOOP
        IF EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_names[i] AND owner <> p_waiter_id AND lease_end > v_now) THEN
            v_busy := i;
            EXIT;
        END IF;
        -- handed to this waiter
        CONTINUE WHEN EXISTS (SELECT 1 FROM dlock_hold WHERE name = p_names[i] AND lease_end > v_now);
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
        FOR v_name IN SELECT name FROM dlock_hold
                WHERE name = ANY (p_names) AND name <> p_names[v_busy] AND owner = p_waiter_id AND mode = 'x'
                  AND lease_end > v_now LOOP
            v_token := dlock_free(v_name, p_waiter_id, v_now);
            PERFORM dlock_pass_on(v_name, v_token, v_now, p_waiter_id, true);
        END LOOP;
        DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND name <> p_names[v_busy] AND waiter_id = p_waiter_id;
        SELECT greatest(1, ceil(extract(epoch FROM min(lease_end) - v_now) * 1000))::bigint INTO v_retry
          FROM dlock_hold WHERE name = p_names[v_busy] AND lease_end > v_now;
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
         WHERE name = p_names[i] AND owner = p_waiter_id AND p_waiter_id <> '' AND lease_end > v_now
        RETURNING token INTO v_token;
        IF NOT FOUND THEN
            -- the same attempt asking again after an outcome it did not learn keeps its grant
            UPDATE dlock_hold SET lease_end = greatest(lease_end, v_lease_end)
             WHERE name = p_names[i] AND owner = p_owners[i] AND mode = 'x' AND lease_end > v_now
            RETURNING token INTO v_token;
            IF NOT FOUND THEN
                v_token := dlock_next_token();
                PERFORM dlock_take(p_names[i], p_owners[i], v_token, v_lease_end, v_now, p_holder);
            END IF;
        END IF;
        RETURN QUERY SELECT i, 1, v_token, 0::bigint;
    END LOOP;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND waiter_id = p_waiter_id;
    END IF;
END $$;

-- dlock_hand_off: V1__dlock.sql's contract, kept; the name's exclusive row goes from the releasing
-- hold to the parked waiter in one in-place update ('own'), or is freed in place first.
CREATE OR REPLACE FUNCTION dlock_hand_off(p_name text, p_from_owner text, p_own_subscriptions integer,
        p_to_owner text, p_lease_ms bigint, p_to_waiter_id text, p_pass_queue boolean,
        OUT outcome text, OUT token bigint, OUT waiter text)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    v_token bigint;
    v_head text;
BEGIN
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));  -- dlock_serialize, written out
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    token := 0; waiter := '';
    SELECT token INTO v_token FROM dlock_hold
     WHERE name = p_name AND owner = p_from_owner AND mode = 'x' AND lease_end > v_now;
    IF NOT FOUND THEN
        outcome := 'not_owner';
        RETURN;
    END IF;
    PERFORM dlock_drop_ended(p_name, v_now);
    SELECT waiter_id INTO v_head FROM dlock_waiter WHERE name = p_name AND mode = 'x' ORDER BY ticket LIMIT 1;
    IF v_head IS NOT NULL AND v_head <> p_to_waiter_id THEN
        IF NOT p_pass_queue THEN
            PERFORM dlock_free(p_name, p_from_owner, v_now);
            waiter := dlock_pass_on(p_name, v_token, v_now, '', false);
            outcome := 'queued';
            RETURN;
        END IF;
        waiter := v_head;
    ELSIF v_head IS NULL
            AND (SELECT count(*) FROM dlock_listener WHERE channel = p_name || ':released') > p_own_subscriptions THEN
        PERFORM dlock_free(p_name, p_from_owner, v_now);
        PERFORM dlock_publish(p_name || ':released', v_token::text);
        outcome := 'released';
        RETURN;
    END IF;
    DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_to_waiter_id;
    token := dlock_next_token();
    PERFORM dlock_take(p_name, p_to_owner, token, v_now + p_lease_ms * interval '1 millisecond', v_now, '');
    outcome := 'own';
END $$;

-- dlock_abandon: V1__dlock.sql's contract, kept; an exclusive hold's row is freed in place
-- (dlock_free), a read hold or permit deleted.
CREATE OR REPLACE FUNCTION dlock_abandon(p_name text, p_owner text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    v_token bigint;
    v_waiters integer;
BEGIN
    PERFORM dlock_serialize(p_name);
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_owner;
    GET DIAGNOSTICS v_waiters = ROW_COUNT;
    SELECT max(token) INTO v_token FROM dlock_hold WHERE name = p_name AND owner = p_owner;
    IF v_token IS NULL THEN
        RETURN least(v_waiters, 1);
    END IF;
    DELETE FROM dlock_hold WHERE name = p_name AND owner = p_owner AND mode <> 'x';
    PERFORM dlock_free(p_name, p_owner, v_now);
    PERFORM dlock_drop_ended(p_name, v_now);
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN 1;
END $$;

-- dlock_force_release: V1__dlock.sql's contract, kept; the name's exclusive row is freed in place
-- (dlock_free), its read holds and permits deleted.
CREATE OR REPLACE FUNCTION dlock_force_release(p_name text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz;
    h record;
    v_count integer := 0;
    v_token bigint := 0;
BEGIN
    PERFORM dlock_serialize(p_name);
    v_now := clock_timestamp();  -- once the name is this call's: see the file's header
    FOR h IN SELECT owner, token FROM dlock_hold WHERE name = p_name AND lease_end > v_now LOOP
        v_count := v_count + 1;
        v_token := greatest(v_token, h.token);
        PERFORM dlock_publish(dlock_client_channel(p_name, h.owner), p_name || chr(9) || h.owner);
    END LOOP;
    DELETE FROM dlock_hold WHERE name = p_name AND mode <> 'x';
    PERFORM dlock_free(p_name, NULL, v_now);
    DELETE FROM dlock_waiter WHERE name = p_name AND mode = 'w';
    PERFORM dlock_drop_ended(p_name, v_now);
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN v_count;
END $$;

-- dlock_sweep: V1__dlock.sql's contract, kept; a name's free exclusive row goes once it has been
-- free for p_grace_ms (since is when it was freed), and every row is checked again as it is
-- deleted, so a row taken meanwhile in place stays.
CREATE OR REPLACE FUNCTION dlock_sweep(p_grace_ms bigint, p_limit integer) RETURNS integer
LANGUAGE sql SET search_path FROM CURRENT AS $$
    WITH cutoff AS (
        SELECT clock_timestamp() - p_grace_ms * interval '1 millisecond' AS t
    ), old_holds AS (
        DELETE FROM dlock_hold h USING cutoff
         WHERE h.ctid IN (SELECT ctid FROM dlock_hold, cutoff WHERE lease_end < cutoff.t AND since < cutoff.t
                           LIMIT p_limit)
           AND h.lease_end < cutoff.t AND h.since < cutoff.t
        RETURNING 1
    ), old_waiters AS (
        DELETE FROM dlock_waiter WHERE ctid IN (SELECT ctid FROM dlock_waiter, cutoff WHERE deadline < cutoff.t LIMIT p_limit)
        RETURNING 1
    ), old_clients AS (
        DELETE FROM dlock_client WHERE ctid IN (SELECT ctid FROM dlock_client, cutoff WHERE expires < cutoff.t LIMIT p_limit)
        RETURNING 1
    ), old_listeners AS (
        DELETE FROM dlock_listener WHERE pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
        RETURNING 1
    )
    SELECT ((SELECT count(*) FROM old_holds) + (SELECT count(*) FROM old_waiters)
          + (SELECT count(*) FROM old_clients) + (SELECT count(*) FROM old_listeners))::integer
$$;

-- dlock_schema_version: the version of this schema; dlock checks it at start.
--
-- Returns      3
-- Guarantees   reads no table (IMMUTABLE)
-- Called by    PgSchema
CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT 3 $$;
