-- dlock's PostgreSQL schema, version 4: run after V3__dlock.sql, in the same schema.
--
-- Up to version 3 every grant, also one from a thread of a client to another thread of the same
-- client, was a call: one round trip and one update of the name's row per grant, so a hot lock
-- taken in turn by the threads of a few clients ran at the rate of calls on one row. Version 4 leaves
-- room in the tokens for those grants to be made by the client alone: the token sequence steps by 16,
-- so every grant the database makes leaves the 15 values above its token unused, and a client
-- holding the lock may hand it to its own parked threads with those tokens, one more per handoff
-- (PgPasses in dlock-core). Every token the database grants later is at least 16 above the last it
-- granted, so above every such pass: tokens stay strictly increasing per lock, across clients.
-- The database's row keeps the owner id of the hold it granted, which the passing client goes on
-- using in its calls (release, renewal); dlock_passed records each pass's token and holder there
-- behind it, for inspection.
--
-- Tokens are still (timeline << 44) + nextval(dlock_token_seq): at 16 per grant the 44 bits give
-- 2^40 (about 10^12) grants per timeline.
--
-- dlock runs it on first use after version 3 (in one transaction with the earlier files, when schema
-- creation is allowed); teams that run migrations ship it as their next version after V3__dlock.sql
-- (Flyway: as it is; Liquibase: <sqlFile ... splitStatements="false"/>). It changes no row: locks
-- held while it runs stay held, and the next token is above every token granted before it. Clients of
-- an earlier build go on working on it (they do not pass; their grants step by 16 too). Running it
-- again changes nothing.

SELECT pg_advisory_xact_lock(1684826987, 0);  -- one creator at a time

ALTER SEQUENCE dlock_token_seq INCREMENT BY 16;

-- dlock_passed: records a grant a client made to one of its own threads (a pass) in the row of the
-- hold it passed, for inspection: the pass's token and its holder description.
--
-- p_name       the lock's key
-- p_owner      the owner id of the hold the database granted (the row's owner, unchanged by passes)
-- p_token      the pass's token: the row's granted token plus the number of passes since, at most 15
-- p_holder     the holder description of the thread the lock was passed to
--
-- Returns      1 when the row was the live hold of p_owner and is updated, else 0 (released, ended,
--              forced, or a later pass recorded already)
-- Guarantees   changes only the token and holder of a live exclusive hold of p_owner, and the token
--              only upwards; no indexed column, so it is a heap-only update like every change of a
--              name's exclusive row (version 3); takes no advisory lock: it decides nothing
-- Called by    PgPasses
CREATE OR REPLACE FUNCTION dlock_passed(p_name text, p_owner text, p_token bigint, p_holder text) RETURNS integer
LANGUAGE sql SET search_path FROM CURRENT AS $$
    WITH done AS (
        UPDATE dlock_hold SET token = p_token, holder = p_holder
         WHERE name = p_name AND owner = p_owner AND mode = 'x' AND lease_end > clock_timestamp()
           AND token < p_token
        RETURNING 1
    )
    SELECT count(*)::integer FROM done
$$;

-- dlock_schema_version: the version of this schema; dlock checks it at start.
--
-- Returns      4
-- Guarantees   reads no table (IMMUTABLE)
-- Called by    PgSchema
CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT 4 $$;
