package dev.keypool.camel;

import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GatewayJsonMapperTest {

    @Test
    void should_hand_a_new_thread_the_buffers_an_earlier_one_gave_back() throws Exception {
        ObjectMapper mapper = GatewayConfiguration.jsonMapper();
        Callable<BufferRecycler> parseOnce = () -> {
            BufferRecycler buffers = mapper.getFactory()._getRecyclerPool().acquireAndLinkPooled();
            buffers.releaseToPool();
            return buffers;
        };

        // each request runs on a thread of its own (virtual threads): a pool per thread would give each new buffers
        assertThat(onNewThread(parseOnce)).isSameAs(onNewThread(parseOnce));
    }

    @Test
    void should_still_read_and_write_json() throws Exception {
        ObjectMapper mapper = GatewayConfiguration.jsonMapper();

        assertThat(mapper.writeValueAsString(mapper.readTree("{\"model\":\"m\",\"n\":[1,2]}")))
                .isEqualTo("{\"model\":\"m\",\"n\":[1,2]}");
    }

    private static <T> T onNewThread(Callable<T> work) throws Exception {
        FutureTask<T> task = new FutureTask<>(work);
        Thread thread = new Thread(task);
        thread.start();
        thread.join();
        return task.get();
    }
}
