package dev.dlock.internal.redis;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key-to-slot mapping (CRC16-XMODEM of the key's hash tag, modulo 16384), and for
 * every slot a short tag that maps to it, so that a bookkeeping key can be put in the slot of a
 * lock's keys.
 */
public final class KeySlots {

    public static final int SLOTS = 16384;
    private static final int[] CRC_TABLE = crcTable();
    private static final char[] TAG_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

    private KeySlots() {
    }

    /** The slot Redis Cluster puts the key in: of its hash tag when it has a non-empty one. */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        return crc16(bytes, from, to) & (SLOTS - 1);
    }

    /** A short tag whose slot is {@code slot}: the key {@code anything{tag}anything} maps to it. */
    public static String tagOf(int slot) {
        return Tags.BY_SLOT[slot];
    }

    public static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
        }
        return crc;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** CRC16-XMODEM (polynomial 0x1021, initial value 0), as Redis computes it. */
    private static int[] crcTable() {
        int[] table = new int[256];
        for (int n = 0; n < 256; n++) {
            int crc = n << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            table[n] = crc & 0xffff;
        }
        return table;
    }

    /** The table of tags, computed on first use: the shortest base-36 strings, first found per slot. */
    private static final class Tags {
        static final String[] BY_SLOT = compute();

        private static String[] compute() {
            String[] bySlot = new String[SLOTS];
            int found = 0;
            for (int length = 1; found < SLOTS; length++) {
                char[] tag = new char[length];
                int combinations = (int) Math.pow(TAG_ALPHABET.length, length);
                for (int n = 0; n < combinations && found < SLOTS; n++) {
                    int rest = n;
                    for (int i = length - 1; i >= 0; i--) {
                        tag[i] = TAG_ALPHABET[rest % TAG_ALPHABET.length];
                        rest /= TAG_ALPHABET.length;
                    }
                    byte[] bytes = new String(tag).getBytes(StandardCharsets.US_ASCII);
                    int slot = crc16(bytes, 0, bytes.length) & (SLOTS - 1);
                    if (bySlot[slot] == null) {
                        bySlot[slot] = new String(tag);
                        found++;
                    }
                }
            }
            return bySlot;
        }
    }
}
