package io.herderaudit.conformance;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Writes one record every {@code interval.ms} that names its producer, for
 * the harness's checker (conformance/checker.py): a schemaless map (the
 * workers' JsonConverter writes it as a JSON object)
 * <pre>
 *   {"task":"count-0","worker":"w1","pid":4242,"instance":"9f0c2a6e","seq":17,"time":1733101234567}
 * </pre>
 * {@code task} is the connector's name and the task's index; {@code worker}
 * the JVM's {@code herder.audit.worker} system property (the harness sets
 * w1, w2, …; "pid-N" when unset); {@code pid} the worker's process id (new at
 * every restart of a worker); {@code instance} eight hex digits drawn at
 * every {@link #start(Map)} (a new task instance, whether a restart,
 * a rebalance or a second worker started it); {@code seq} the sequence
 * number, counting on from the committed source offset (so an instance
 * that starts from an older offset re-sends numbers: a replay, at least
 * once delivery); {@code time} the worker's clock when the record was
 * made (also the record's timestamp). While the file named by
 * {@code fail.if.exists} exists, the task fails on start (a task FAILED for
 * the REST restarts to act on).
 */
public class CountingSourceTask extends SourceTask {
    private static final SecureRandom RANDOM = new SecureRandom();
    private String topic;
    private String name;
    private String worker;
    private long pid;
    private String instance;
    private long interval;
    private long next;
    private Map<String, String> partition;

    @Override
    public String version() {
        return "1";
    }

    @Override
    public void start(Map<String, String> props) {
        String fail = props.getOrDefault("fail.if.exists", "");
        if (!fail.isEmpty() && Files.exists(Paths.get(fail))) {
            throw new ConnectException("fail.if.exists: " + fail + " exists");
        }
        topic = props.get("topic");
        name = props.get("name") + "-" + props.get("task.index");
        interval = Long.parseLong(props.getOrDefault("interval.ms", "100"));
        pid = ProcessHandle.current().pid();
        worker = System.getProperty("herder.audit.worker", "pid-" + pid);
        instance = String.format("%08x", RANDOM.nextInt());
        partition = Collections.singletonMap("task", name);
        Map<String, Object> offset = context.offsetStorageReader().offset(partition);
        next = offset == null ? 0 : ((Number) offset.get("n")).longValue() + 1;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        Thread.sleep(interval);
        long n = next++;
        long now = System.currentTimeMillis();
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("task", name);
        value.put("worker", worker);
        value.put("pid", pid);
        value.put("instance", instance);
        value.put("seq", n);
        value.put("time", now);
        return Collections.singletonList(new SourceRecord(partition, Collections.singletonMap("n", n),
                topic, null, null, null, null, value, now));
    }

    @Override
    public void stop() {
    }
}
