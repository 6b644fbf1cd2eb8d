package dev.baton.morsel.history;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.avro.util.Utf8;

/**
 * A query's dictionary of strings: the column operators carry longs, so a projected string field
 * (a site key, a request id, a queue) becomes its id here and turns back into the string when the
 * answer is read. Id 0 is null; ids are dense from 1, so group keys stay small. Thread-safe: the
 * scan's workers intern concurrently.
 */
final class StringIds {

    static final long NULL = 0;
    /** Tables start large: a history scan interns a few strings per site, and growing a concurrent table under the scan is costly. */
    private static final int INITIAL_CAPACITY = 1 << 16;

    // Keyed by UTF-8 bytes: a projected field is looked up in the decoder's reused buffer, with no String made
    // unless the bytes are new (then they are copied, since the buffer changes with the next record).
    private final Map<Utf8, Long> ids = new ConcurrentHashMap<>(INITIAL_CAPACITY);
    private final Map<Long, Utf8> strings = new ConcurrentHashMap<>(INITIAL_CAPACITY);
    private final AtomicLong next = new AtomicLong(1);

    long id(String s) {
        return s == null ? NULL : lookup(new Utf8(s));
    }

    /** The id of these bytes; {@code s} may be a reused buffer, it is not kept. */
    long id(Utf8 s) {
        return s == null ? NULL : lookup(s);
    }

    /** The id of the string these UTF-8 bytes spell (a record key); the array is not kept. */
    long id(byte[] utf8) {
        return utf8 == null ? NULL : lookup(new Utf8(utf8));
    }

    private long lookup(Utf8 s) {
        Long known = ids.get(s);
        if (known != null) {
            return known;
        }
        Utf8 kept = new Utf8(Arrays.copyOf(s.getBytes(), s.getByteLength()));
        return ids.computeIfAbsent(kept, k -> {
            long id = next.getAndIncrement();
            strings.put(id, k);
            return id;
        });
    }

    String string(long id) {
        if (id == NULL) {
            return null;
        }
        Utf8 s = strings.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no string has id " + id + " in this dictionary");
        }
        return s.toString();
    }
}
