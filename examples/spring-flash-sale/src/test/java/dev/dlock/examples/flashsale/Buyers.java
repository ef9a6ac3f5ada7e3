package dev.dlock.examples.flashsale;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Buyers of the flash sale over HTTP, many at once. */
final class Buyers {

    private Buyers() {
    }

    /** Sends {@code buyers} purchases to {@code path}, {@code concurrent} at a time; counts the answers by HTTP status. */
    static Map<Integer, Integer> buyAtOnce(int port, String path, int buyers, int concurrent) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(concurrent);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        try {
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < buyers; i++) {
                URI uri = URI.create("http://127.0.0.1:" + port + path + "?buyer=buyer-" + i);
                statuses.add(pool.submit(() -> http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding()).statusCode()));
            }
            Map<Integer, Integer> counts = new TreeMap<>();
            for (Future<Integer> status : statuses) {
                counts.merge(status.get(120, TimeUnit.SECONDS), 1, Integer::sum);
            }
            return counts;
        } finally {
            pool.shutdownNow();
        }
    }
}
