package dev.keypool.probe;

import java.util.Collection;
import java.util.Set;

/**
 * Which instance probes a channel's keys (design §8, §11): with several instances sharing a Redis, one holds each
 * channel's probe lease at a time and runs all its scheduled and recovery probes, so that N instances send the probe
 * traffic of one; the others take the lease over when its holder stops renewing it. {@link #ALONE}: every channel is
 * this instance's own.
 */
@FunctionalInterface
public interface ProbeLeases {

    /** One instance alone, or Redis away: this instance probes every channel. */
    ProbeLeases ALONE = Set::copyOf;

    /** Of {@code channels}, those this instance probes now: leases it holds, or claims now that nobody holds them. */
    Set<String> held(Collection<String> channels);
}
