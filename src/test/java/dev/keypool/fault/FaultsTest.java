package dev.keypool.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class FaultsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MutableClock clock = new MutableClock();
    private final LogCapture logs = LogCapture.attach();
    private final double[] draw = {0.0};
    /** The keys as a reload leaves them: the faults read them at every add. */
    private final Map<String, Set<String>> keys = new ConcurrentHashMap<>(Map.of("zhipu",
            Set.of("aaaa000000000000", "bbbb000000000000"), "deepseek", Set.of("cccc000000000000")));
    private final Faults faults = new Faults(() -> keys, clock, () -> draw[0]);

    @AfterEach
    void closeLogs() {
        logs.close();
    }

    @Test
    void should_strike_every_call_of_the_channel_until_its_duration_is_over() {
        Fault fault = faults.add(json("{\"channel\":\"zhipu\",\"kind\":\"status\",\"status\":503,\"duration\":\"30s\"}"));

        assertThat(fault.id()).isEqualTo("fault-1");
        assertThat(fault.rate()).isEqualTo(1.0);
        assertThat(faults.strike("zhipu", "aaaa000000000000")).contains(fault);
        assertThat(faults.strike("zhipu", "bbbb000000000000")).contains(fault);
        assertThat(faults.strike("deepseek", "cccc000000000000")).isEmpty();
        assertThat(logs.lines()).contains(
                "WARN Fault fault-1 injected: status 503 at rate 1.0 on channel [zhipu] (all keys) for 30s");

        clock.advance(Duration.ofSeconds(30));
        assertThat(faults.strike("zhipu", "aaaa000000000000")).isEmpty();
        faults.expire();
        assertThat(faults.active()).isEmpty();
        assertThat(logs.lines()).contains(
                "WARN Fault fault-1 ended: its 30s are over (status 503 at rate 1.0 on channel [zhipu] (all keys) for 30s)");
    }

    @Test
    void should_strike_only_its_key_when_it_names_one() {
        Fault fault = faults.add(json("{\"channel\":\"zhipu\",\"key\":\"bbbb000000000000\",\"kind\":\"reset\"}"));

        assertThat(faults.strike("zhipu", "aaaa000000000000")).isEmpty();
        assertThat(faults.strike("zhipu", "bbbb000000000000")).contains(fault);
        assertThat(fault.duration()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void should_accept_a_key_and_a_channel_that_a_reload_added() {
        keys.put("zhipu", Set.of("aaaa000000000000", "bbbb000000000000", "dddd000000000000"));
        keys.put("moonshot", Set.of("eeee000000000000"));

        Fault onNewKey = faults.add(json("{\"channel\":\"zhipu\",\"key\":\"dddd000000000000\",\"kind\":\"reset\"}"));
        Fault onNewChannel = faults.add(json("{\"channel\":\"moonshot\",\"kind\":\"reset\"}"));

        assertThat(faults.strike("zhipu", "dddd000000000000")).contains(onNewKey);
        assertThat(faults.strike("moonshot", "eeee000000000000")).contains(onNewChannel);
    }

    @Test
    void should_strike_a_share_of_the_calls_by_its_rate() {
        faults.add(json("{\"channel\":\"zhipu\",\"kind\":\"latency\",\"latencyMs\":200,\"rate\":0.25}"));

        draw[0] = 0.24;
        assertThat(faults.strike("zhipu", "aaaa000000000000")).isPresent();
        draw[0] = 0.25;
        assertThat(faults.strike("zhipu", "aaaa000000000000")).isEmpty();
    }

    @Test
    void should_end_a_removed_fault_with_a_line() {
        Fault fault = faults.add(json("{\"channel\":\"deepseek\",\"kind\":\"timeout\"}"));
        clock.advance(Duration.ofSeconds(5));

        assertThat(faults.remove(fault.id())).contains(fault);
        assertThat(faults.remove(fault.id())).isEmpty();
        assertThat(faults.strike("deepseek", "cccc000000000000")).isEmpty();
        assertThat(logs.lines()).anyMatch(l -> l.startsWith("WARN Fault fault-1 ended: removed by operator after 5s"));
    }

    @Test
    void should_list_every_problem_of_a_bad_request() {
        Faults.InvalidFault invalid = catchThrowableOfType(Faults.InvalidFault.class, () -> faults.add(json(
                "{\"channel\":\"zhipu\",\"key\":\"ffff\",\"kind\":\"status\",\"rate\":2,\"duration\":\"soon\",\"colour\":\"red\"}")));

        assertThat(invalid.problems()).containsExactlyInAnyOrder(
                "colour: unknown field (use channel, duration, key, kind, latencyMs, rate, status)",
                "key: no key with fingerprint 'ffff' in channel zhipu",
                "status: is required for this kind",
                "rate: must be a number > 0 and <= 1",
                "duration: invalid duration 'soon' (use e.g. 500ms, 30s, 5m)");
        assertThat(catchThrowableOfType(Faults.InvalidFault.class, () -> faults.add(json("{\"channel\":\"nope\",\"kind\":\"boom\"}")))
                .problems()).containsExactly("channel: no channel named 'nope'", "kind: unknown kind 'boom' (use status, latency, timeout, reset)");
        assertThat(catchThrowableOfType(Faults.InvalidFault.class, () -> faults.add(json(
                "{\"channel\":\"zhipu\",\"kind\":\"status\",\"status\":200}"))).problems())
                .containsExactly("status: must be an integer from 400 to 599");
        assertThat(catchThrowableOfType(Faults.InvalidFault.class, () -> faults.add(json("[]"))).problems())
                .containsExactly("body: must be a JSON object");
        assertThat(faults.active()).isEmpty();
    }

    @Test
    void should_tell_its_peers_and_take_in_what_they_tell() {
        List<String> told = new ArrayList<>();
        Faults shared = new Faults(() -> keys, clock, () -> draw[0], new FaultPeers() {
            @Override
            public Optional<String> nextId() {
                return Optional.of("fault-42");
            }

            @Override
            public void added(Fault fault) {
                told.add("added " + fault.id());
            }

            @Override
            public void removed(Fault fault) {
                told.add("removed " + fault.id());
            }
        });
        Fault mine = shared.add(json("{\"channel\":\"zhipu\",\"kind\":\"reset\"}"));
        Fault theirs = new Fault("fault-43", "deepseek", null, FaultKind.STATUS, 503, 0, 1.0, Duration.ofSeconds(30),
                clock.instant());
        Fault over = new Fault("fault-7", "deepseek", null, FaultKind.RESET, 0, 0, 1.0, Duration.ofSeconds(30),
                clock.instant().minusSeconds(31));

        shared.heard(theirs);
        shared.heard(theirs);
        shared.heard(over);
        assertThat(shared.active()).containsExactly(mine, theirs);
        assertThat(shared.strike("deepseek", "cccc000000000000")).contains(theirs);
        shared.heardRemoved("fault-43");
        assertThat(shared.remove("fault-42")).contains(mine);

        assertThat(shared.active()).isEmpty();
        assertThat(told).containsExactly("added fault-42", "removed fault-42");
        assertThat(logs.lines()).contains(
                "WARN Fault fault-43 injected on another instance: status 503 at rate 1.0 on channel [deepseek] (all keys) for 30s",
                "WARN Fault fault-43 ended: removed on another instance (status 503 at rate 1.0 on channel [deepseek] (all keys) for 30s)");
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
