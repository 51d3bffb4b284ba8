// The end offset of every partition of every topic on a cluster (the
// records it holds): `java -cp 'kafka-clients jars/*' EndOffsets.java HOST:PORT`.
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

public class EndOffsets {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        try (Admin admin = Admin.create(props)) {
            Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
            var names = admin.listTopics().names().get();
            for (TopicDescription d : admin.describeTopics(names).allTopicNames().get().values()) {
                d.partitions().forEach(p -> specs.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            Map<String, Long> out = new TreeMap<>();
            admin.listOffsets(specs).all().get().forEach((tp, info) -> out.put(tp.topic() + ":" + tp.partition(), info.offset()));
            out.forEach((k, v) -> System.out.println(k + ":" + v));
        }
    }
}
