-- dlock's PostgreSQL schema, version 1.
--
-- dlock runs this file as it is on first use (in the schema the client names, in one transaction)
-- when schema creation is allowed. Teams that run migrations copy it into their migration folder:
-- Flyway takes it as it is (rename the V1 to your next version if you already have a V1); Liquibase
-- runs it with <sqlFile path="..." splitStatements="false"/> (the functions contain semicolons).
-- Every object goes into the current schema (the first of search_path); each function keeps that
-- search_path (SET search_path FROM CURRENT), so it finds its tables whatever its caller's is.
-- Running the file again changes nothing (IF NOT EXISTS, CREATE OR REPLACE).
--
-- Time is the database's clock (clock_timestamp()), never a client's. Every function that changes
-- a lock first takes a transaction-scoped advisory lock on the lock's name (dlock_serialize): two
-- calls on one name never interleave, calls on different names never wait for each other, and the
-- lock ends with the transaction, so it works behind PgBouncer's transaction pooling too.
-- Each function is one transaction of one round trip: a grant, a release and the handoff to the
-- next waiter, with its notification, commit together or not at all (NOTIFY is sent at commit).

SELECT pg_advisory_xact_lock(1684826987, 0);  -- one creator at a time

-- Fencing tokens are (timeline << 44) + nextval(dlock_token_seq). The sequence never hands out a
-- value twice on one server, also across a crash (a committed grant's sequence advance is in the WAL
-- its commit flushed). The timeline id goes up at every promotion of a replica, so every token after
-- a promotion is above every token before it, even one whose commit never reached the replica.
CREATE SEQUENCE IF NOT EXISTS dlock_token_seq AS bigint;
CREATE SEQUENCE IF NOT EXISTS dlock_ticket_seq AS bigint;

-- One row per hold; name is the lock's key (<prefix>{<lock name>}). mode: 'x' exclusive (reentrant,
-- fair and write locks), 'r' a read hold, 'p' a semaphore permit. A hold whose lease_end has passed
-- is no hold: every function ignores it, and the next change of its name (or dlock_sweep) deletes it.
CREATE TABLE IF NOT EXISTS dlock_hold (
    name       text        NOT NULL,
    owner      text        NOT NULL,
    mode       "char"      NOT NULL,
    hold_count integer     NOT NULL,
    token      bigint      NOT NULL,
    lease_end  timestamptz NOT NULL,
    since      timestamptz NOT NULL,
    holder     text        NOT NULL,  -- '' when the owner's client record says who it is
    permits    integer     NOT NULL,  -- 'p': the permit count it was taken with; else 0
    slot       integer     NOT NULL,  -- 'p': the permit's slot 0 .. permits-1; else 0
    PRIMARY KEY (name, owner, mode)
);

-- Waiters that leave a trace: 'x' queued for a reentrant or fair lock (a release hands the lock to
-- the first live one by ticket), 'w' a waiting writer (new readers wait behind it). A waiter lapses
-- at its deadline unless it asks again before.
CREATE TABLE IF NOT EXISTS dlock_waiter (
    name      text        NOT NULL,
    waiter_id text        NOT NULL,
    mode      "char"      NOT NULL,
    ticket    bigint      NOT NULL,
    deadline  timestamptz NOT NULL,
    lease_ms  bigint      NOT NULL,
    holder    text        NOT NULL,
    PRIMARY KEY (name, waiter_id)
);

-- Subscriptions: the notification channel (listener) of each client connection that wants the
-- messages of a dlock channel (a lock's '<key>:released', a client's '<prefix>client:{<id>}').
-- pid is the backend of the LISTEN connection: when it is gone, so is the subscription (dlock_sweep).
CREATE TABLE IF NOT EXISTS dlock_listener (
    channel  text    NOT NULL,
    listener text    NOT NULL,
    pid      integer NOT NULL,
    PRIMARY KEY (channel, listener)
);

-- Who a client is (for inspection): name, host, pid, and the names of its threads that took locks.
CREATE TABLE IF NOT EXISTS dlock_client (
    client_id   text        PRIMARY KEY,
    client_name text        NOT NULL,
    host        text        NOT NULL,
    pid         bigint      NOT NULL,
    threads     jsonb       NOT NULL,
    expires     timestamptz NOT NULL
);

-- The helpers below run inside the functions after them, whose search_path they share: they have
-- no SET clause of their own, and are PL/pgSQL so that their plans are cached per session (a SQL
-- function called from PL/pgSQL is planned again at every call).

-- dlock_serialize: the advisory lock that orders every change of one lock name.
--
-- p_name       the lock's key (<prefix>{name})
--
-- Returns      nothing
-- Guarantees   until the calling transaction ends, no other call on p_name makes its changes;
--              calls on other names never wait for it (but two names of one hashtext may)
-- Called by    dlock_abandon, dlock_force_release (dlock_acquire, dlock_release and dlock_hand_off
--              write it out)
CREATE OR REPLACE FUNCTION dlock_serialize(p_name text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));
END $$;

-- dlock_next_token: a fresh fencing token.
--
-- Returns      (timeline << 44) + nextval(dlock_token_seq); the timeline is the server's current
--              one (the first 8 hex digits of its WAL file name)
-- Guarantees   above every token this server, or the primary it was promoted from, handed out
--              before, across a crash and a promotion too (see dlock_token_seq above)
-- Called by    dlock_pass_on, dlock_acquire_all, dlock_hand_off (dlock_acquire writes it out)
CREATE OR REPLACE FUNCTION dlock_next_token() RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    RETURN (('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint << 44)
           + nextval('dlock_token_seq');
END $$;

-- dlock_client_channel: the client channel of the client of an owner or waiter id, for one lock.
--
-- p_key        the lock's key (<prefix>{name})
-- p_owner      an owner id or a waiter id; both start with their client's id ('<client id>:...')
--
-- Returns      '<prefix>client:{<client id>}'
-- Guarantees   reads no table (IMMUTABLE)
-- Called by    dlock_pass_on, dlock_force_release
CREATE OR REPLACE FUNCTION dlock_client_channel(p_key text, p_owner text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT split_part(p_key, '{', 1) || 'client:{' || split_part(p_owner, ':', 1) || '}'
$$;

-- dlock_publish: sends a message to every subscriber of a dlock channel.
--
-- p_channel    the dlock channel ('<key>:released', or a client channel)
-- p_message    the message
--
-- Returns      nothing
-- Guarantees   NOTIFY <listener>, '<channel>\t<message>' for each subscribed listener
--              (dlock_listener); PostgreSQL delivers it at commit, so a change rolled back is never
--              announced
-- Called by    dlock_pass_on, dlock_hand_off, dlock_force_release
CREATE OR REPLACE FUNCTION dlock_publish(p_channel text, p_message text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    l text;
BEGIN
    FOR l IN SELECT listener FROM dlock_listener WHERE channel = p_channel LOOP
        PERFORM pg_notify(l, p_channel || chr(9) || p_message);
    END LOOP;
END $$;

-- dlock_subscribe: subscribes a client's LISTEN connection to a dlock channel.
--
-- p_channel    the dlock channel ('<key>:released', or the client's own channel)
-- p_listener   the notification channel that connection LISTENs on
-- p_pid        that connection's backend pid: once it is gone, dlock_sweep drops the subscription
--
-- Returns      nothing
-- Guarantees   idempotent: subscribing again only records the new pid
-- Called by    PgWakeUps (a channel's first waiter; every channel again on a new LISTEN connection)
CREATE OR REPLACE FUNCTION dlock_subscribe(p_channel text, p_listener text, p_pid integer) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    INSERT INTO dlock_listener VALUES (p_channel, p_listener, p_pid)
    ON CONFLICT (channel, listener) DO UPDATE SET pid = excluded.pid
$$;

-- dlock_unsubscribe: ends a subscription of dlock_subscribe.
--
-- p_channel    the dlock channel
-- p_listener   the notification channel of the LISTEN connection
--
-- Returns      nothing
-- Guarantees   idempotent: nothing happens when there is no such subscription
-- Called by    PgWakeUps (the channel's last waiter is gone)
CREATE OR REPLACE FUNCTION dlock_unsubscribe(p_channel text, p_listener text) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    DELETE FROM dlock_listener WHERE channel = p_channel AND listener = p_listener
$$;

-- dlock_drop_ended: drops the holds and waiters of one name that have ended.
--
-- p_name       the lock's key
-- p_now        the caller's clock_timestamp(), so that all of one call judges by one instant
--
-- Returns      nothing
-- Guarantees   no hold whose lease_end, and no waiter whose deadline, is at or before p_now is left
--              on p_name; call it under dlock_serialize
-- Called by    dlock_hand_off, dlock_abandon, dlock_force_release (dlock_acquire and dlock_release
--              write it out)
CREATE OR REPLACE FUNCTION dlock_drop_ended(p_name text, p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= p_now;
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= p_now;
END $$;

-- dlock_pass_on: after a hold of a name ended (released, abandoned, forced, handed over), with no
-- hold left, hands the lock to the first live queued waiter, or announces that it is free.
--
-- p_name       the lock's key
-- p_token      the fencing token of the hold that ended (what a free lock's message says)
-- p_now        the caller's clock_timestamp()
-- p_except     a waiter id not to hand it to (a multi-lock giving up its names), or ''
-- p_publish    with nobody queued, publish p_token on '<key>:released'
--
-- Returns      the waiter id it handed the lock to, or NULL (still held, or nobody queued)
-- Guarantees   only when no live hold is left: the first live 'x' waiter by ticket (not p_except)
--              gets the lock in this transaction (owner = its waiter id, hold count 1, a fresh
--              token, its own lease or what is left of its deadline, whichever is shorter), loses
--              its queue entry, and its client is told 'handoff\t<key>:released\t<token>:<waiter id>'
--              on its client channel; call it under dlock_serialize
-- Called by    dlock_acquire, dlock_release, dlock_acquire_all, dlock_hand_off, dlock_abandon,
--              dlock_force_release
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
        DELETE FROM dlock_hold WHERE name = p_name;
        INSERT INTO dlock_hold VALUES (p_name, w.waiter_id, 'x', 1, t,
               p_now + least(w.lease_ms * interval '1 millisecond', w.deadline - p_now), p_now, w.holder, 0, 0);
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

-- dlock_acquire: one acquire attempt of one hold, of any kind.
--
-- p_name       the lock's key
-- p_mode       'x' reentrant or fair lock (queued: a release hands it to the first waiter), 'w' a
--              write lock (held as 'x'; a waiting writer holds new readers back), 'r' a read
--              lock, 'p' a semaphore permit
-- p_owner      the attempt's owner id (the hold's own on re-entry)
-- p_lease_ms   the lease, in ms
-- p_holder     the holder description stored for inspection ('' when the client record says it)
-- p_reentry    the caller believes it holds the lock already
-- p_waiter_id  'x' and 'w': the acquisition's waiter id, the same for all its attempts; else ''
-- p_waiter_timeout_ms  how long a queued waiter keeps its place without asking again, in ms
-- p_may_wait   the caller waits when refused: a waiter id is then queued ('x') or marks ('w')
-- p_downgrade  'r': the owner id of the calling thread's write hold, else ''
-- p_permits    'p': the permit count the caller expects, else 0
--
-- Returns      one row (status, token, hold_count, retry_ms, slot):
--              status 1   granted: token, hold_count, slot (a permit's)
--              status 0   held by others, or free with a live waiter queued ahead: retry after
--                         retry_ms at the latest (the first lease to end, else the waiter timeout);
--                         token = the waiter's ticket
--              status -1  a re-entry found the hold gone
--              status -2  'p': held with another permit count, which is in hold_count
-- Guarantees   a re-entry extends the lease, never shortens it; a lock handed to p_waiter_id is
--              claimed under p_owner; the same attempt asking again after an outcome it did not
--              learn keeps its grant; a free lock with others queued first goes to the first of
--              them (dlock_pass_on), not to this caller
-- Called by    PostgresStore (acquire)
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
            ON CONFLICT (name, waiter_id) DO UPDATE SET deadline = excluded.deadline,
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
    ON CONFLICT (name, owner, mode) DO UPDATE SET lease_end = greatest(h.lease_end, excluded.lease_end)
    RETURNING h.token, h.hold_count INTO token, hold_count;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_waiter_id;
    END IF;
    status := 1;
END $$;

-- dlock_release: gives back one hold.
--
-- p_name       the lock's key
-- p_mode       the hold's mode: 'x' (reentrant, fair and write locks), 'r', 'p'
-- p_owner      the hold's owner id
--
-- Returns      n > 0  still held by p_owner with n holds left
--              0      freed, and passed on (dlock_pass_on: to the first live queued waiter, else
--                     its token published on '<key>:released')
--              -1     p_owner holds nothing live there (its lease ended, or it was forced);
--                     nothing changed
-- Guarantees   the last hold goes in one statement; an ended hold is never given back
-- Called by    PostgresStore (release)
CREATE OR REPLACE FUNCTION dlock_release(p_name text, p_mode "char", p_owner text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_left integer;
    v_token bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));  -- dlock_serialize, written out
    -- the last hold goes in one statement (one dead tuple, not an update's two); an inner re-entry
    -- counts down
    DELETE FROM dlock_hold WHERE name = p_name AND owner = p_owner AND mode = p_mode AND lease_end > v_now
                             AND hold_count = 1
    RETURNING token INTO v_token;
    IF NOT FOUND THEN
        UPDATE dlock_hold SET hold_count = hold_count - 1
         WHERE name = p_name AND owner = p_owner AND mode = p_mode AND lease_end > v_now AND hold_count > 1
        RETURNING hold_count INTO v_left;
        RETURN CASE WHEN FOUND THEN v_left ELSE -1 END;
    END IF;
    DELETE FROM dlock_hold WHERE name = p_name AND lease_end <= v_now;
    DELETE FROM dlock_waiter WHERE name = p_name AND deadline <= v_now;
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN 0;
END $$;

-- dlock_acquire_all: a multi-lock's acquire attempt: every name as a reentrant lock ('x'), all of
-- them or none, in this one transaction.
--
-- p_names      the locks' keys
-- p_owners     p_owners[i] is the attempt's owner id of p_names[i]
-- p_lease_ms   the lease of every hold, in ms
-- p_holder     the holder description stored for inspection
-- p_waiter_id  the multi-lock's waiter id, the same for all its attempts ('' when it does not
--              queue); a name held under it was handed to the waiter by a release and counts as
--              free for this attempt
-- p_waiter_timeout_ms  how long a queued waiter keeps its place without asking again, in ms
-- p_may_wait   the caller waits when refused: it is then queued on the busy name
--
-- Returns      granted: one row per name, in the order given (ord, 1, token, 0); else one row
--              (ord, 0, ticket, retry_ms) naming the first busy name, held by others or free with
--              others queued first (who then get it, as in dlock_acquire)
-- Guarantees   the advisory locks are taken in one order whatever the caller's, so two multi-locks
--              never wait for each other in a cycle; refused, nothing else of the acquisition is
--              left in the tables: a name handed to its waiter id is passed on, and only the busy
--              name keeps it queued (when p_may_wait)
-- Called by    PgAllOrNone
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
            ON CONFLICT (name, waiter_id) DO UPDATE SET deadline = excluded.deadline,
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
            ON CONFLICT (name, owner, mode) DO UPDATE SET lease_end = greatest(h.lease_end, excluded.lease_end)
            RETURNING h.token INTO v_token;
        END IF;
        RETURN QUERY SELECT i, 1, v_token, 0::bigint;
    END LOOP;
    IF p_waiter_id <> '' THEN
        DELETE FROM dlock_waiter WHERE name = ANY (p_names) AND waiter_id = p_waiter_id;
    END IF;
END $$;

-- dlock_hand_off: the last release of an exclusive hold while one of its client's waiters is
-- parked on the same lock, which may then take it without a round trip through the queue.
--
-- p_name       the lock's key
-- p_from_owner the releasing hold's owner id
-- p_own_subscriptions  the releasing client's own subscriptions to '<key>:released'
-- p_to_owner   the owner id the parked waiter takes the lock under
-- p_lease_ms   the parked waiter's lease, in ms
-- p_to_waiter_id  the parked waiter's waiter id
-- p_pass_queue the parked waiter may go ahead of the first queued waiter (the client bounds how
--              often in a row, see PostgresStore)
--
-- Returns      one row (outcome, token, waiter):
--              'own'        granted to p_to_owner (hold count 1, a fresh token, lease p_lease_ms);
--                           waiter: the queued waiter it went ahead of, or ''
--              'queued'     handed to the first live queued waiter (not the parked one), whose id
--                           is in waiter
--              'released'   nobody queued, and more connections than p_own_subscriptions are
--                           subscribed to the lock's channel (waiters not queued): released for
--                           everyone
--              'not_owner'  p_from_owner held no live hold; nothing changed
-- Guarantees   'own' removes the parked waiter's queue entry; the lock is never left held by
--              nobody while a queued waiter waits for it
-- Called by    PgHandoff
DROP FUNCTION IF EXISTS dlock_hand_off(text, text, integer, text, bigint, text);
CREATE OR REPLACE FUNCTION dlock_hand_off(p_name text, p_from_owner text, p_own_subscriptions integer,
        p_to_owner text, p_lease_ms bigint, p_to_waiter_id text, p_pass_queue boolean,
        OUT outcome text, OUT token bigint, OUT waiter text)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_token bigint;
    v_head text;
BEGIN
    PERFORM pg_advisory_xact_lock(1684826987, hashtext(p_name));  -- dlock_serialize, written out
    token := 0; waiter := '';
    DELETE FROM dlock_hold WHERE name = p_name AND owner = p_from_owner AND mode = 'x' AND lease_end > v_now
    RETURNING token INTO v_token;
    IF NOT FOUND THEN
        outcome := 'not_owner';
        RETURN;
    END IF;
    PERFORM dlock_drop_ended(p_name, v_now);
    SELECT waiter_id INTO v_head FROM dlock_waiter WHERE name = p_name AND mode = 'x' ORDER BY ticket LIMIT 1;
    IF v_head IS NOT NULL AND v_head <> p_to_waiter_id THEN
        IF NOT p_pass_queue THEN
            waiter := dlock_pass_on(p_name, v_token, v_now, '', false);
            outcome := 'queued';
            RETURN;
        END IF;
        waiter := v_head;
    ELSIF v_head IS NULL
            AND (SELECT count(*) FROM dlock_listener WHERE channel = p_name || ':released') > p_own_subscriptions THEN
        PERFORM dlock_publish(p_name || ':released', v_token::text);
        outcome := 'released';
        RETURN;
    END IF;
    DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_to_waiter_id;
    token := dlock_next_token();
    INSERT INTO dlock_hold VALUES (p_name, p_to_owner, 'x', 1, token,
           v_now + p_lease_ms * interval '1 millisecond', v_now, '', 0, 0);
    outcome := 'own';
END $$;

-- dlock_abandon: drops every hold of an owner on a name, and its queue entry when the owner is a
-- waiter id (a waiter that stops waiting; a lock already handed to it goes on).
--
-- p_name       the lock's key
-- p_owner      an owner id, or a waiter id
--
-- Returns      1 when a hold or a queue entry was dropped, else 0
-- Guarantees   a hold dropped, the lock goes on as at a release (dlock_pass_on)
-- Called by    PostgresStore (abandon, leave)
CREATE OR REPLACE FUNCTION dlock_abandon(p_name text, p_owner text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_token bigint;
    v_waiters integer;
BEGIN
    PERFORM dlock_serialize(p_name);
    DELETE FROM dlock_waiter WHERE name = p_name AND waiter_id = p_owner;
    GET DIAGNOSTICS v_waiters = ROW_COUNT;
    SELECT max(token) INTO v_token FROM dlock_hold WHERE name = p_name AND owner = p_owner;
    IF v_token IS NULL THEN
        RETURN least(v_waiters, 1);
    END IF;
    DELETE FROM dlock_hold WHERE name = p_name AND owner = p_owner;
    PERFORM dlock_drop_ended(p_name, v_now);
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN 1;
END $$;

-- dlock_force_release: frees a name whoever holds it, whatever its kind (an operator's release).
--
-- p_name       the lock's key
--
-- Returns      the number of live holds dropped
-- Guarantees   every hold and waiting writer's mark goes; each live holder's client is told
--              '<key>\t<owner id>' on its client channel (so it learns its loss at once); the lock
--              is passed on (dlock_pass_on)
-- Called by    PostgresStore (forceRelease)
CREATE OR REPLACE FUNCTION dlock_force_release(p_name text) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    h record;
    v_count integer := 0;
    v_token bigint := 0;
BEGIN
    PERFORM dlock_serialize(p_name);
    FOR h IN DELETE FROM dlock_hold WHERE name = p_name RETURNING owner, token, lease_end LOOP
        IF h.lease_end > v_now THEN
            v_count := v_count + 1;
            v_token := greatest(v_token, h.token);
            PERFORM dlock_publish(dlock_client_channel(p_name, h.owner), p_name || chr(9) || h.owner);
        END IF;
    END LOOP;
    DELETE FROM dlock_waiter WHERE name = p_name AND mode = 'w';
    PERFORM dlock_drop_ended(p_name, v_now);
    PERFORM dlock_pass_on(p_name, v_token, v_now, '', true);
    RETURN v_count;
END $$;

-- dlock_renew: the watchdog's batch of renewals.
--
-- p_names      the locks' keys
-- p_owners     p_owners[i] is the owner id of the hold on p_names[i]
-- p_lease_ms   the lease, in ms
--
-- Returns      one row (ord, renewed) per pair, in the order given: true renewed, false gone
--              (released, ended, forced)
-- Guarantees   each live hold of the pair ends at now + p_lease_ms at the earliest: never shortened,
--              never created, an ended hold never renewed
-- Called by    PostgresStore (renew)
CREATE OR REPLACE FUNCTION dlock_renew(p_names text[], p_owners text[], p_lease_ms bigint)
RETURNS TABLE (ord integer, renewed boolean)
LANGUAGE sql SET search_path FROM CURRENT AS $$
    WITH asked AS (
        SELECT a.name, a.owner, a.ord::integer AS ord
          FROM unnest(p_names, p_owners) WITH ORDINALITY AS a(name, owner, ord)
    ), done AS (
        UPDATE dlock_hold h
           SET lease_end = greatest(h.lease_end, clock_timestamp() + p_lease_ms * interval '1 millisecond')
          FROM asked
         WHERE h.name = asked.name AND h.owner = asked.owner AND h.lease_end > clock_timestamp()
        RETURNING asked.ord
    )
    SELECT asked.ord, EXISTS (SELECT 1 FROM done WHERE done.ord = asked.ord) FROM asked ORDER BY asked.ord
$$;

-- dlock_holds: every live hold of a name, oldest first: what info(), status and list show.
--
-- p_name       the lock's key
--
-- Returns      one row per live hold (owner, mode, hold_count, token, holder, lease_left_ms,
--              held_ms, permits, slot), by since, then owner
-- Guarantees   reads only (STABLE)
-- Called by    PgInspection
CREATE OR REPLACE FUNCTION dlock_holds(p_name text)
RETURNS TABLE (owner text, mode "char", hold_count integer, token bigint, holder text,
               lease_left_ms bigint, held_ms bigint, permits integer, slot integer)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT owner, mode, hold_count, token, holder,
           greatest(0, ceil(extract(epoch FROM lease_end - clock_timestamp()) * 1000))::bigint,
           greatest(0, floor(extract(epoch FROM clock_timestamp() - since) * 1000))::bigint,
           permits, slot
      FROM dlock_hold WHERE name = p_name AND lease_end > clock_timestamp() ORDER BY since, owner
$$;

-- dlock_names: the lock names in use that match a pattern.
--
-- p_pattern    a regular expression over the keys
-- p_limit      the most names returned
--
-- Returns      the keys with a live hold or waiter that match p_pattern, sorted, at most p_limit
-- Guarantees   reads only (STABLE)
-- Called by    PgInspection
CREATE OR REPLACE FUNCTION dlock_names(p_pattern text, p_limit integer)
RETURNS TABLE (name text)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT name FROM dlock_hold WHERE name ~ p_pattern AND lease_end > clock_timestamp()
    UNION
    SELECT name FROM dlock_waiter WHERE name ~ p_pattern AND deadline > clock_timestamp()
    ORDER BY name LIMIT p_limit
$$;

-- dlock_waiting_count: how many connections wait on a lock.
--
-- p_name       the lock's key
--
-- Returns      the connections subscribed to '<key>:released' (clients with waiters), each once
-- Guarantees   reads only (STABLE)
-- Called by    PgInspection
CREATE OR REPLACE FUNCTION dlock_waiting_count(p_name text) RETURNS bigint
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT count(*) FROM dlock_listener WHERE channel = p_name || ':released'
$$;

-- dlock_write_client: writes a client's record (for inspection).
--
-- p_client_id  the client's id
-- p_client_name  its name
-- p_host       its host
-- p_pid        its process id
-- p_ttl_ms     how long the record lives at least, in ms
-- p_replace    the record names these threads only (else they are added)
-- p_threads    the names of its threads that took locks: a JSON object, thread id to name
--
-- Returns      nothing
-- Guarantees   the record's expiry is only ever pushed on; an expired record's threads are
--              replaced, not added to
-- Called by    PgClientRecords
CREATE OR REPLACE FUNCTION dlock_write_client(p_client_id text, p_client_name text, p_host text, p_pid bigint,
        p_ttl_ms bigint, p_replace boolean, p_threads jsonb) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    INSERT INTO dlock_client AS c VALUES (p_client_id, p_client_name, p_host, p_pid, p_threads,
           clock_timestamp() + p_ttl_ms * interval '1 millisecond')
    ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, host = excluded.host,
           pid = excluded.pid,
           threads = CASE WHEN p_replace OR c.expires <= clock_timestamp() THEN excluded.threads
                          ELSE c.threads || excluded.threads END,
           expires = greatest(c.expires, excluded.expires)
$$;

-- dlock_sweep: removes old rows nobody will ask about.
--
-- p_grace_ms   how long after their end holds, waiters and client records are kept, in ms
-- p_limit      the most rows of each table deleted
--
-- Returns      the number of rows deleted
-- Guarantees   deletes only holds and waiters that ended over p_grace_ms ago (on names nobody
--              changed since: a crashed client's), client records expired as long, and
--              subscriptions of connections that are gone; never a live hold or waiter
-- Called by    PostgresStore (sweep)
CREATE OR REPLACE FUNCTION dlock_sweep(p_grace_ms bigint, p_limit integer) RETURNS integer
LANGUAGE sql SET search_path FROM CURRENT AS $$
    WITH cutoff AS (
        SELECT clock_timestamp() - p_grace_ms * interval '1 millisecond' AS t
    ), old_holds AS (
        DELETE FROM dlock_hold WHERE ctid IN (SELECT ctid FROM dlock_hold, cutoff WHERE lease_end < cutoff.t LIMIT p_limit)
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
-- Returns      1
-- Guarantees   reads no table (IMMUTABLE)
-- Called by    PgSchema
CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT 1 $$;
