package dev.keypool.camel.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.impl.VertxByteBufAllocator;

/**
 * The direct memory Netty pools for the sockets' reads and writes: Vert.x's pooled allocator, one arena per event loop,
 * each taking memory outside the heap a chunk at a time. Its chunks are 1 MiB here instead of Netty's 4 MiB: a read or
 * write of a request or an event is at most 64 KiB, and with 4 MiB chunks the arenas held 8–20 MB of the gateway's
 * memory (bench/README.md, "Where the memory is"); a buffer larger than a chunk is allocated on its own.
 */
public final class NettyBuffers {

    /** Netty's chunk size as a power of two of its 8 KiB page, read once when its allocator class loads. */
    static final String MAX_ORDER = "io.netty.allocator.maxOrder";
    /** 8 KiB × 2^7 = 1 MiB. */
    static final String ONE_MIB_CHUNKS = "7";

    private NettyBuffers() {
    }

    /**
     * Sets the chunk size for this JVM unless {@code -Dio.netty.allocator.maxOrder} is given; before any Netty class
     * loads (KeyPoolApplication.main), since Netty reads it once.
     */
    public static void poolInSmallChunks() {
        System.getProperties().putIfAbsent(MAX_ORDER, ONE_MIB_CHUNKS);
    }

    /**
     * The pooled allocator's figures in the meter registry: {@code netty_allocator_memory_used} (direct and heap),
     * {@code netty_allocator_pooled_chunk_size}, arenas and caches.
     */
    public static void bindMetrics(MeterRegistry meters) {
        if (VertxByteBufAllocator.POOLED_ALLOCATOR instanceof PooledByteBufAllocator pooled) {
            new NettyAllocatorMetrics(pooled).bindTo(meters);
        }
    }
}
