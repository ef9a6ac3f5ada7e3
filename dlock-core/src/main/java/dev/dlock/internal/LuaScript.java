package dev.dlock.internal;

import io.lettuce.core.ScriptOutputType;
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
 */
public enum LuaScript {
    ACQUIRE("acquire.lua", ScriptOutputType.MULTI),
    RELEASE("release.lua", ScriptOutputType.INTEGER),
    HANDOFF("handoff.lua", ScriptOutputType.MULTI),
    ABANDON("abandon.lua", ScriptOutputType.INTEGER),
    FORCE_RELEASE("force_release.lua", ScriptOutputType.INTEGER),
    RENEW("renew.lua", ScriptOutputType.MULTI),
    REASSERT("reassert.lua", ScriptOutputType.INTEGER),
    INSPECT("inspect.lua", ScriptOutputType.MULTI),
    FAIR_ACQUIRE("fair_acquire.lua", ScriptOutputType.MULTI),
    FAIR_RELEASE("fair_release.lua", ScriptOutputType.INTEGER),
    FAIR_ABANDON("fair_abandon.lua", ScriptOutputType.INTEGER),
    FAIR_LEAVE("fair_leave.lua", ScriptOutputType.INTEGER),
    RW_ACQUIRE("rw_acquire.lua", ScriptOutputType.MULTI),
    RW_RELEASE("rw_release.lua", ScriptOutputType.INTEGER),
    RW_LEAVE("rw_leave.lua", ScriptOutputType.INTEGER);

    private static final String INCLUDE = "-- @include ";

    private final String fileName;
    private final String body;
    private final String sha1;
    private final ScriptOutputType outputType;

    LuaScript(String fileName, ScriptOutputType outputType) {
        this.fileName = fileName;
        this.body = load(fileName);
        this.sha1 = sha1Hex(body);
        this.outputType = outputType;
    }

    public String fileName() {
        return fileName;
    }

    public String body() {
        return body;
    }

    public String sha1() {
        return sha1;
    }

    ScriptOutputType outputType() {
        return outputType;
    }

    private static String load(String fileName) {
        StringBuilder body = new StringBuilder();
        for (String line : read(fileName).split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                body.append(read(line.substring(INCLUDE.length()).trim())).append('\n');
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
