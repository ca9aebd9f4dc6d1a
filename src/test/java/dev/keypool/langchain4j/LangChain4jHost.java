package dev.keypool.langchain4j;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.keypool.component.KeyPoolComponent;
import dev.keypool.testing.FakeUpstream;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * A plain Java application's CamelContext with KeyPool's pipeline in it (the keypool component, no HTTP port), on a
 * keypool.yaml whose {@code UPSTREAM} is the fake provider's base URL: what the LangChain4j models are built on.
 */
final class LangChain4jHost implements AutoCloseable {

    final FakeUpstream upstream = new FakeUpstream();
    final CamelContext context = new DefaultCamelContext();

    LangChain4jHost(String keypoolYaml) throws Exception {
        Path config = Files.createTempFile("keypool-langchain4j-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(config, keypoolYaml.replace("UPSTREAM", upstream.baseUrl()));
        context.getPropertiesComponent().addInitialProperty("state.dir", tempDir());
        context.getPropertiesComponent().addInitialProperty("keypool.retry-backoff-ms", "1");
        context.getComponent("keypool", KeyPoolComponent.class).setConfig(config.toString());
        context.start();
    }

    KeyPoolChatModel.Builder chatModel(String model) {
        return KeyPoolChatModel.builder().camelContext(context).modelName(model);
    }

    KeyPoolStreamingChatModel.Builder streamingModel(String model) {
        return KeyPoolStreamingChatModel.builder().camelContext(context).modelName(model);
    }

    private static String tempDir() throws IOException {
        return Files.createTempDirectory("keypool-state-").toString();
    }

    @Override
    public void close() {
        context.stop();
        upstream.close();
    }
}
