package dev.dlock.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts, one {@code .lua} resource each (its header is the contract). Run by EVALSHA
 * with the SHA-1 computed here, so no SCRIPT LOAD round trip is needed up front; a server whose
 * script cache is empty (restarted, failed over) answers NOSCRIPT and gets the body once.
 *
 * <p>Code shared by several scripts of one lock kind lives in {@code scripts/lib/}; a line
 * {@code -- @include lib/<file>.lua} is replaced by that file when the script is loaded, so each
 * script still reaches Redis as one self-contained body.
 *
 * <p>Each script has one body per {@link Variant}: they differ only in the pub/sub library
 * ({@code lib/pubsub.lua}), which publishes and counts subscribers with PUBLISH / PUBSUB NUMSUB,
 * or on Redis Cluster with SPUBLISH / PUBSUB SHARDNUMSUB. A node runs the variant it needs.
 */
public enum LuaScript {
    ACQUIRE("acquire.lua", Output.ARRAY),
    RELEASE("release.lua", Output.INTEGER),
    HANDOFF("handoff.lua", Output.ARRAY),
    ABANDON("abandon.lua", Output.INTEGER),
    LEAVE("leave.lua", Output.INTEGER),
    FORCE_RELEASE("force_release.lua", Output.INTEGER),
    RENEW("renew.lua", Output.ARRAY),
    REASSERT("reassert.lua", Output.INTEGER),
    INSPECT("inspect.lua", Output.ARRAY),
    FAIR_ACQUIRE("fair_acquire.lua", Output.ARRAY),
    FAIR_RELEASE("fair_release.lua", Output.INTEGER),
    FAIR_ABANDON("fair_abandon.lua", Output.INTEGER),
    FAIR_LEAVE("fair_leave.lua", Output.INTEGER),
    RW_ACQUIRE("rw_acquire.lua", Output.ARRAY),
    RW_RELEASE("rw_release.lua", Output.INTEGER),
    RW_LEAVE("rw_leave.lua", Output.INTEGER),
    SEMAPHORE_ACQUIRE("semaphore_acquire.lua", Output.ARRAY),
    SEMAPHORE_RELEASE("semaphore_release.lua", Output.INTEGER),
    INSPECT_HOLDS("inspect_holds.lua", Output.ARRAY),
    RECORD_HOLDER("record_holder.lua", Output.INTEGER),
    READ_HOLDER("read_holder.lua", Output.ARRAY),
    FORGET_HOLDER("forget_holder.lua", Output.INTEGER);

    private static final String INCLUDE = "-- @include ";
    private static final String PUBSUB_LIBRARY = "lib/pubsub.lua";

    private final String fileName;
    private final Output output;
    /*
     * Each variant's body is read and hashed on first use, not when the enum is initialised: a
     * short-lived client (dlock status) runs one or two of the scripts, and reading and hashing all
     * of them, both variants, was a good part of its run. A race computes equal values twice.
     */
    private volatile Body plain;
    private volatile Body sharded;

    LuaScript(String fileName, Output output) {
        this.fileName = fileName;
        this.output = output;
    }

    /** A body as sent to Redis, with its SHA-1. */
    private record Body(String text, String sha1) {
        static Body of(String fileName, Variant variant) {
            String text = load(fileName, variant);
            return new Body(text, sha1Hex(text));
        }
    }

    private Body made(Variant variant) {
        if (variant == Variant.SHARDED) {
            Body made = sharded;
            if (made == null) {
                made = Body.of(fileName, Variant.SHARDED);
                sharded = made;
            }
            return made;
        }
        Body made = plain;
        if (made == null) {
            made = Body.of(fileName, Variant.PLAIN);
            plain = made;
        }
        return made;
    }

    /**
     * How a script publishes and counts subscribers: {@link #PLAIN} pub/sub on one Redis (and
     * Redlock's masters), {@link #SHARDED} pub/sub on Redis Cluster, where a message must stay in
     * the shard of the lock's slot.
     */
    public enum Variant {
        PLAIN("lib/pubsub.lua"),
        SHARDED("lib/pubsub_sharded.lua");

        private final String pubSubLibrary;

        Variant(String pubSubLibrary) {
            this.pubSubLibrary = pubSubLibrary;
        }
    }

    /** The body of the given variant. */
    public String body(Variant variant) {
        return made(variant).text();
    }

    /** The SHA-1 of the given variant's body. */
    public String sha1(Variant variant) {
        return made(variant).sha1();
    }

    public String fileName() {
        return fileName;
    }

    /** The {@link Variant#PLAIN} body. */
    public String body() {
        return body(Variant.PLAIN);
    }

    /** The {@link Variant#PLAIN} body's SHA-1. */
    public String sha1() {
        return sha1(Variant.PLAIN);
    }

    /** The shape of the script's reply (see its header). */
    public Output output() {
        return output;
    }

    /**
     * Whether the script only gives back what its caller holds or queued for (a release, an
     * abandon, leaving a queue, dropping the caller's record): it never grants, so running it on one
     * server twice, through two Redlock nodes, is harmless.
     */
    public boolean givesBackOnly() {
        return switch (this) {
            case RELEASE, ABANDON, LEAVE, FAIR_RELEASE, FAIR_ABANDON, FAIR_LEAVE, RW_RELEASE, RW_LEAVE,
                    SEMAPHORE_RELEASE, FORGET_HOLDER -> true;
            default -> false;
        };
    }

    /** What a script returns: an integer, or an array (of integers and strings). */
    public enum Output {
        INTEGER,
        ARRAY
    }

    private static String load(String fileName, Variant variant) {
        StringBuilder body = new StringBuilder();
        for (String line : read(fileName).split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                String library = line.substring(INCLUDE.length()).trim();
                body.append(read(library.equals(PUBSUB_LIBRARY) ? variant.pubSubLibrary : library)).append('\n');
            } else {
                body.append(line).append('\n');
            }
        }
        return body.toString();
    }

    private static String read(String fileName) {
        try (InputStream in = LuaScript.class.getResourceAsStream("scripts/" + fileName)) {
            if (in == null) {
                throw new IllegalStateException("Lua script resource missing from the jar: " + fileName);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + fileName, e);
        }
    }

    private static String sha1Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
