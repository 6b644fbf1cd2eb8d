package dev.baton.morsel.history;

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

    private final Map<String, Long> ids = new ConcurrentHashMap<>();
    private final Map<Long, String> strings = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong(1);

    long id(String s) {
        if (s == null) {
            return NULL;
        }
        Long known = ids.get(s);
        if (known != null) {
            return known;
        }
        return ids.computeIfAbsent(s, k -> {
            long id = next.getAndIncrement();
            strings.put(id, k);
            return id;
        });
    }

    long id(Utf8 s) {
        return s == null ? NULL : id(s.toString());
    }

    String string(long id) {
        if (id == NULL) {
            return null;
        }
        String s = strings.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no string has id " + id + " in this dictionary");
        }
        return s;
    }
}
