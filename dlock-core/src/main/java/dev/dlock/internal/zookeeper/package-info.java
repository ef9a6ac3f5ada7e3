/**
 * The ZooKeeper backend: locks as ephemeral sequential nodes of a ZooKeeper ensemble, on the
 * ZooKeeper client alone (no Curator). {@link dev.dlock.internal.zookeeper.ZooKeeperStores} opens
 * it; the rest is package-private.
 */
package dev.dlock.internal.zookeeper;
