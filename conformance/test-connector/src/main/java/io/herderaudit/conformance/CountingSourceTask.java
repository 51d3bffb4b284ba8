package io.herderaudit.conformance;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Writes {@code <connector>-<task>-<n>}, n counting on from the committed
 * offset. While the file named by {@code fail.if.exists} exists, the task
 * fails on start (a task FAILED for the REST restarts to act on).
 */
public class CountingSourceTask extends SourceTask {
    private String topic;
    private String name;
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
        partition = Collections.singletonMap("task", name);
        Map<String, Object> offset = context.offsetStorageReader().offset(partition);
        next = offset == null ? 0 : ((Number) offset.get("n")).longValue() + 1;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        Thread.sleep(interval);
        long n = next++;
        return Collections.singletonList(new SourceRecord(partition,
                Collections.singletonMap("n", n), topic, Schema.STRING_SCHEMA, name + "-" + n));
    }

    @Override
    public void stop() {
    }
}
