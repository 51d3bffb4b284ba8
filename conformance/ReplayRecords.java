// The records of a console-consumer dump (conformance/topics.sh: CreateTime,
// Partition, Offset, key, value, tab-separated; `null` a tombstone) produced
// again into TOPIC, in order, each with its own time stamp (CreateTime) and
// into partition 0: `java -cp 'kafka-clients jars/*' ReplayRecords.java
// HOST:PORT TOPIC DUMP` (conformance/topics-live.sh).
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class ReplayRecords {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("acks", "all");
        props.put("max.in.flight.requests.per.connection", "1");
        int n = 0;
        try (KafkaProducer<String, String> p = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (String line : Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8)) {
                String[] f = line.split("\t", 5);
                if (f.length < 5 || !f[0].startsWith("CreateTime:")) continue;
                long ts = Long.parseLong(f[0].substring("CreateTime:".length()));
                String value = f[4].equals("null") ? null : f[4];
                p.send(new ProducerRecord<>(args[1], 0, ts, f[3], value)).get();
                n++;
            }
        }
        System.out.println(args[1] + ": " + n + " records");
    }
}
