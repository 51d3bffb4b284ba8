package io.herderaudit.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector whose {@link #taskConfigs(int)} sleeps {@code block.ms}
 * milliseconds, once in the whole cluster: the call that deletes the file
 * {@code block.marker} sleeps. The herder thread waits for it, so a long sleep
 * makes the worker miss its group poll and leave the group without revoking
 * (KAFKA-16056). Its tasks ({@link CountingSourceTask}) write a record
 * every {@code interval.ms} to {@code topic}, each naming its producer
 * (worker, task, instance, sequence number from the committed offset, time):
 * the history conformance/checker.py judges.
 */
public class BlockingSourceConnector extends SourceConnector {
    private Map<String, String> props;

    @Override
    public String version() {
        return "1";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CountingSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        long block = Long.parseLong(props.getOrDefault("block.ms", "0"));
        String marker = props.getOrDefault("block.marker", "");
        boolean mine = false;
        try {
            mine = !marker.isEmpty() && Files.deleteIfExists(Paths.get(marker));
        } catch (IOException e) {
            mine = false;
        }
        if (block > 0 && mine) {
            try {
                Thread.sleep(block);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<Map<String, String>> out = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> c = new HashMap<>(props);
            c.put("task.index", Integer.toString(i));
            out.add(c);
        }
        return out;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef()
                .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "output topic")
                .define("block.ms", ConfigDef.Type.LONG, 0L, ConfigDef.Importance.LOW,
                        "how long taskConfigs() sleeps on the herder thread")
                .define("block.marker", ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW,
                        "the file whose deletion makes one taskConfigs() call sleep")
                .define("fail.if.exists", ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW,
                        "while this file exists, the tasks fail on start")
                .define("interval.ms", ConfigDef.Type.LONG, 100L, ConfigDef.Importance.LOW,
                        "pause between records");
    }
}
