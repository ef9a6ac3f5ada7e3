package dev.dlock.spring;

import java.util.function.Supplier;

/** Another bean's idea of where Redis is, consulted when no dlock.* address is set. */
interface RedisAddressSource extends Supplier<RedisAddress> {
}
