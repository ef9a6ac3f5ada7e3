/** dlock on ZooKeeper side by side with Apache Curator's lock recipes, on one ensemble. */
package dev.dlock.bench.zookeeper;
