import dev.baton.embedded.EmbeddedKafkaCluster;
/** Starts a 3-node embedded cluster on the data dir given, prints its bootstrap servers, runs until killed (issue-29 probes). */
public class Broker29 {
    public static void main(String[] a) throws Exception {
        EmbeddedKafkaCluster c = EmbeddedKafkaCluster.builder().dataDir(java.nio.file.Path.of(a[0])).build().start();
        System.out.println("BOOTSTRAP " + c.bootstrapServers());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
